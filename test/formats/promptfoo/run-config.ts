// Runs a promptfoo config written inline through the library (load, run, run log) and returns its
// results in plan order: the end-to-end shape of the compatibility tests.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { JobResult } from '../../../src/core/types.js';
import { type EvaluateOptions, type EvaluateResult, evaluate } from '../../../src/evaluate.js';

let n = 0;

/** Writes `config` (and `files`) into a fresh folder under `root` and evaluates it. */
export async function runConfig(
  root: string,
  config: string,
  opts: {
    files?: Record<string, string>;
    env?: Record<string, string>;
    options?: Partial<EvaluateOptions>;
  } = {},
): Promise<{ results: JobResult[]; run: EvaluateResult }> {
  const dir = join(root, `suite-${n++}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(opts.files ?? {})) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  writeFileSync(join(dir, 'promptfooconfig.yaml'), config);
  const run = await evaluate({
    suitePath: join(dir, 'promptfooconfig.yaml'),
    runsDir: join(dir, 'runs'),
    cache: false,
    env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'test-key', ...opts.env },
    ...opts.options,
  });
  return { results: readResults(run.runDir, run), run };
}

/** A run's results sorted by case, trial, provider and prompt (the plan's order). */
export function readResults(runDir: string, run: EvaluateResult): JobResult[] {
  const prompts = run.suite.prompts.map((p) => p.id);
  const providers = run.manifest.providers.map((p) => String(p.key));
  return readFileSync(join(runDir, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l) as JobResult)
    .sort(
      (a, b) =>
        a.caseIndex - b.caseIndex ||
        a.trial - b.trial ||
        providers.indexOf(a.providerId) - providers.indexOf(b.providerId) ||
        prompts.indexOf(a.promptId) - prompts.indexOf(b.promptId),
    );
}
