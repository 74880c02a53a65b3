// Issue 25: promptfoo 0.123.1's behaviour on the last differences, recorded by running it on the
// configs of test/fixtures/promptfoo-fidelity/ (record.mjs, SOURCE.md there), and assay's on the same.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { runCli } from '../../support/cli.js';
import { fixture } from '../../support/paths.js';
import { type TrimmedRow, trimRow } from '../../support/promptfoo-diff.js';
import { tempDir } from '../../support/tmp.js';
import { errorsOf } from './helpers.js';

const DIR = fixture('promptfoo-fidelity');
const tmp = tempDir('assay-pf-fidelity-');
after(tmp.cleanup);

const recorded = (name: string): TrimmedRow[] =>
  JSON.parse(readFileSync(join(DIR, `${name}.promptfoo.json`), 'utf8')) as TrimmedRow[];
const configText = (name: string): string => readFileSync(join(DIR, `${name}.yaml`), 'utf8');
const byKey = (rows: TrimmedRow[]): TrimmedRow[] =>
  [...rows].sort((a, b) =>
    `${a.description}|${a.prompt.label}`.localeCompare(`${b.description}|${b.prompt.label}`),
  );

let n = 0;
/** Runs a config (text) in a fresh folder with the fixture's files and returns its promptfoo-format rows. */
async function runAssay(config: string, files: string[] = []): Promise<TrimmedRow[]> {
  const dir = join(tmp.dir, `s${n++}`);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
  for (const f of files) copyFileSync(join(DIR, f), join(dir, f));
  writeFileSync(join(dir, 'promptfooconfig.yaml'), config);
  const out = join(dir, 'out.json');
  const r = await runCli([
    'eval',
    join(dir, 'promptfooconfig.yaml'),
    '--no-cache',
    '--no-progress',
    '--runs-dir',
    join(dir, 'runs'),
    '--output-format',
    'promptfoo',
    '-o',
    out,
  ]);
  assert.ok([0, 1, 3].includes(r.code), `assay ran it (exit ${r.code}): ${r.stderr.slice(-1500)}`);
  return byKey(JSON.parse(readFileSync(out, 'utf8')).results.results.map(trimRow));
}

/** The config with only the tests whose description satisfies `keep`. */
function onlyTests(text: string, keep: (description: string) => boolean): string {
  const config = parse(text);
  config.tests = config.tests.filter((t: { description: string }) => keep(t.description));
  return stringify(config);
}

describe('and / or: not promptfoo assertion types', () => {
  it('promptfoo fails each row with "Unknown assertion type"; assay refuses each at its line before the run', async () => {
    assert.deepEqual(
      recorded('and-or').map((r) => [r.description, r.error]),
      [
        ['and', 'Error: Unknown assertion type: and'],
        ['or', 'Error: Unknown assertion type: or'],
      ],
    );
    const diags = await errorsOf(configText('and-or'));
    assert.deepEqual(
      diags.map((d) => [d.line, d.message]),
      ['and', 'or'].map((t, i) => [
        7 + 5 * i,
        `tests[${i}].assert[0]: assertion type "${t}" is not a promptfoo type (promptfoo fails each row with "Unknown assertion type: ${t}"); group assertions with "assert-set"`,
      ]),
    );
  });
});

describe('nunjucksFilters: prompts only, as in promptfoo', () => {
  const rows = recorded('filters');
  const errored = new Set(rows.filter((r) => r.error !== undefined).map((r) => String(r.description)));

  it('promptfoo errors every row of a test using a filter in an assertion value; assay refuses the value at its line', async () => {
    assert.deepEqual([...errored].sort(), [
      'array: filter in an array value',
      'value: filter in an assertion value',
    ]);
    for (const r of rows.filter((r) => r.error !== undefined))
      assert.equal(r.error, 'Template render error: (unknown path) Error: filter not found: shout');
    const diags = await errorsOf(configText('filters'), {
      'shout.js': readFileSync(join(DIR, 'shout.js'), 'utf8'),
    });
    const errors = diags.filter((d) => d.severity === 'error');
    assert.deepEqual(
      errors.map((d) => [d.line, d.message]),
      [
        [
          15,
          'tests[0].assert[0].value: template error: unknown filter "shout" (`nunjucksFilters` apply to prompts only, as in promptfoo)',
        ],
        [
          20,
          'tests[1].assert[0].value[0]: template error: unknown filter "shout" (`nunjucksFilters` apply to prompts only, as in promptfoo)',
        ],
      ],
    );
  });

  it('in prompts (text and JSON), vars and metric names: the rows promptfoo writes', async () => {
    const got = await runAssay(
      onlyTests(configText('filters'), (d) => !errored.has(d)),
      ['shout.js'],
    );
    assert.deepEqual(got, byKey(rows.filter((r) => !errored.has(String(r.description)))));
  });
});
