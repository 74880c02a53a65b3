// Real runs for the report tests: `assay eval` of a small promptfoo suite answered by the echo
// provider (the reply is the rendered prompt, so vars put hostile text into the model's output).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.js';
import { runDirsOldestFirst } from './runs.js';

/** A reply that would run script if the report ever treated it as markup. */
export const XSS_SCRIPT = '</script><script>window.__pwned = 1</script>';
export const XSS_IMG = '<img src=x onerror="window.__pwned = 2">';

/** The capitals suite: three described cases (one passes), a hostile one, a JSON one. */
export const CAPITALS = `description: Capitals (report test)
prompts:
  - 'What is the capital of {{country}}?'
  - 'Name the capital city of {{country}}.'
providers:
  - echo
tests:
  - description: capital of {{country}}
    vars: { country: France }
    metadata: { region: europe, 'a=b': 'c=d' }
    assert:
      - type: contains
        value: France
  - description: capital of {{country}}
    vars: { country: Japan }
    metadata: { region: asia }
    assert:
      - type: contains
        value: Tokyo
  - description: capital of {{country}}
    vars: { country: Peru }
    metadata: { region: americas }
    assert:
      - type: icontains
        value: lima
      - type: javascript
        value: output.length < 5
  - vars:
      country: '${XSS_SCRIPT}${XSS_IMG}'
    metadata: { region: hostile }
    assert:
      - type: contains
        value: capital
  - vars: { country: '{"a": [1, 2], "b": "json"}' }
    assert:
      - type: is-json
`;

/** Writes a suite into `dir`, runs `assay eval` there with extra args, and returns the run directory. */
export async function evalSuite(
  dir: string,
  config: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<{ runDir: string; stdout: string; stderr: string; code: number }> {
  writeFileSync(join(dir, 'promptfooconfig.yaml'), config);
  const run = await runCli(['eval', '.', '--no-progress', ...args], { cwd: dir, env });
  const runs = runDirsOldestFirst(dir);
  if (runs.length === 0) throw new Error(`no run written: ${run.stderr}`);
  return { runDir: runs[runs.length - 1], ...run };
}

/** A suite of `n` echo tests, every `failEvery`-th failing, each with a category. */
export function manyTests(n: number, failEvery: number): string {
  const tests: string[] = [];
  for (let i = 0; i < n; i++)
    tests.push(
      `  - description: item {{n}}\n    vars: { n: ${i} }\n    metadata: { category: c${i % 3} }\n    assert:\n      - type: contains\n        value: '${i % failEvery === 0 ? `absent-${i}` : `item ${i}`}'`,
    );
  return `description: Many items\nprompts:\n  - 'item {{n}}'\nproviders:\n  - echo\ntests:\n${tests.join('\n')}\n`;
}
