// `assay init --format lve`: an LVE repository of one test that runs offline at once. The test's
// model is replaced by the echo provider (--provider), which answers with the prompt itself.
import type { Starter } from '../types.js';

const TEST = {
  description: 'The model greets the person it is asked to greet (a starter LVE).',
  model: 'openai/gpt-3.5-turbo',
  checker_args: { checker_name: 'RegexChecker', pattern: 'Hello, [A-Z][a-z]+', match_safe: true },
  prompt: [{ content: 'Write exactly: Hello, {name}!', role: 'user' }],
  prompt_parameters: ['name'],
  tags: [{ name: 'severity', value: 'low' }],
  author: 'assay-init',
};

// Instances are recorded runs: the inputs (args) with the answer and verdict they got.
const INSTANCES = [
  { args: { name: 'Ada' }, response: 'Hello, Ada!', passed: true, run_info: {}, author: 'assay-init' },
  { args: { name: 'Grace' }, response: 'Hello, Grace!', passed: true, run_info: {}, author: 'assay-init' },
];

const dir = 'repository/starter/greetings/hello/openai--gpt-35-turbo';

export const starter: Starter = {
  files: {
    '.lverepo': 'github.com/lve-org/lve\n',
    [`${dir}/test.json`]: `${JSON.stringify(TEST, null, 4)}\n`,
    [`${dir}/instances/starter.jsonl`]: `${INSTANCES.map((i) => JSON.stringify(i)).join('\n')}\n`,
  },
  evalArgs: ['--provider', 'echo'],
};
