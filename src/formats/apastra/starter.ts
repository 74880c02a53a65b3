// `assay init --format apastra`: a promptops workspace with one smoke suite (a prompt, a dataset
// with its digest, two deterministic evaluators, thresholds) that runs offline at once with the echo
// provider for the suite's `default` model.
import { pyJsonLoads } from '../../core/python/json-loads.js';
import type { Starter } from '../types.js';
import { jsonlDigest } from './digest.js';

const CASES = [
  { case_id: 'ada', inputs: { name: 'Ada' }, expected_outputs: { should_contain: ['Hello', 'Ada'] } },
  { case_id: 'grace', inputs: { name: 'Grace' }, expected_outputs: { should_contain: ['Hello', 'Grace'] } },
];

export async function starter(): Promise<Starter> {
  const lines = CASES.map((c) => JSON.stringify(c));
  const digest = jsonlDigest(lines.map((l) => pyJsonLoads(l)));
  return {
    files: {
      'promptops/prompts/greeting.yaml': `id: greeting-v1
variables:
  name: { type: string }
template: "Say Hello to {{name}} in one sentence."
`,
      'promptops/datasets/greetings/dataset.jsonl': `${lines.join('\n')}\n`,
      'promptops/datasets/greetings/dataset-manifest.yaml': `id: greetings
version: "1.0.0"
schema_version: "https://promptops.apastra.com/schemas/dataset-case.schema.json"
digest: "${digest}"
`,
      'promptops/evaluators/keywords.yaml': `id: keywords-v1
type: deterministic
metrics:
  - keyword_recall
description: Fraction of expected_outputs.should_contain found in the answer (case-insensitive).
config:
  match_field: should_contain
  case_sensitive: false
`,
      'promptops/suites/greetings-smoke.yaml': `# A starter apastra suite, written by \`assay init --format apastra\`.
id: greetings-smoke
name: Greetings smoke
description: Two greetings, scored by keyword recall.
tier: smoke
prompt: greeting-v1
datasets:
  - greetings
evaluators:
  - keywords-v1
model_matrix:
  - default
trials: 1
thresholds:
  keyword_recall: 0.8
`,
    },
    evalArgs: ['--suite', 'greetings-smoke', '--provider', 'echo'],
  };
}
