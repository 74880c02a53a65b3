// Run settings a promptfoo config carries (evaluateOptions, commandLineOptions, outputPath,
// provider delay/env) and the PROMPTFOO_* switches the loader reads (promptfoo.md §1.1, §8, §9).
import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { errorsOf, loadText, varsOf, writeSuite } from './helpers.js';

const BASE = `prompts: ['{{q}}']
providers: [echo]
tests:
  - vars: {q: one}
`;

describe('promptfoo run options', () => {
  it('evaluateOptions become run defaults; commandLineOptions override them key by key', async () => {
    const suite = await loadText(`${BASE}evaluateOptions:
  maxConcurrency: 3
  repeat: 2
  delay: 50
  cache: false
  showProgressBar: false
  timeoutMs: 1000
  maxEvalTimeMs: 0
commandLineOptions:
  repeat: "4"
  grader: echo
  filterPattern: ^a
  filterFirstN: 2
  filterSample: 1
  filterSampleSeed: 7
  filterMetadata: lang=en
  filterTargets: fast
`);
    assert.deepEqual(suite.runDefaults, {
      maxConcurrency: 3,
      repeat: 4,
      delayMs: 50,
      cache: false,
      progress: false,
      jobTimeoutMs: 1000,
      grader: 'echo',
      filters: { pattern: '^a', firstN: 2, sample: 1, seed: 7, metadata: ['lang=en'], providers: 'fast' },
    });
    assert.deepEqual(suite.warnings, []);
  });

  it('commandLineOptions.var, promptPrefix/promptSuffix and description shape the loaded suite', async () => {
    const path = writeSuite({
      'promptfooconfig.yaml': `prompts: ['{{q}} {{lang}}']
providers: [echo]
commandLineOptions:
  var: {lang: en, tone: dry}
  promptPrefix: 'P: '
  promptSuffix: ' :S'
  description: from the options
defaultTest:
  options: {suffix: ' [config wins]'}
tests:
  - vars: {q: one}
  - vars: {q: two, lang: fr}
`,
    });
    const suite = await loadPromptfooSuite(path, { env: {}, vars: { tone: 'warm' } });
    // --var beats commandLineOptions.var; a test's own var beats both.
    assert.deepEqual(varsOf(suite.cases), [
      { lang: 'en', tone: 'warm', q: 'one' },
      { lang: 'fr', tone: 'warm', q: 'two' },
    ]);
    // The config's own defaultTest prefix/suffix beats the command-line default (spec §1.6).
    assert.deepEqual(suite.cases[0].preparation?.options?.prefix, 'P: ');
    assert.deepEqual(suite.cases[0].preparation?.options?.suffix, ' [config wins]');
    assert.equal(suite.name, 'from the options');
  });

  it('outputPath: a file or a list; .json is promptfoo’s results JSON; paths as promptfoo writes them', async () => {
    const suite = await loadText(`${BASE}outputPath: [out/results.json, out/rows.csv]
commandLineOptions: {output: out/all.jsonl}
`);
    assert.deepEqual(suite.runDefaults?.outputs, [
      { path: resolve('out/all.jsonl') },
      { path: resolve('out/results.json'), format: 'promptfoo' },
      { path: resolve('out/rows.csv') },
    ]);
  });

  it('refuses what it cannot honour, each at its key, and warns about what has no effect', async () => {
    const diags = await errorsOf(`${BASE}outputPath: report.html
evaluateOptions: {maxConcurrency: 0, generateSuggestions: true, silent: true, repaet: 2}
commandLineOptions: {providers: [x], table: false, delay: soon}
`);
    assert.deepEqual(
      diags.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.col} ${d.message}`),
      [
        '6:35 `evaluateOptions.maxConcurrency` must be a whole number from 1 to 10000, not 0',
        '6:38 prompt suggestions (`generateSuggestions`) is not supported by assay yet (it comes in a later version)',
        '7:22 `commandLineOptions.providers` (list them under `providers`, or give assay -p) is not supported by assay yet (it comes in a later version)',
        '7:59 `commandLineOptions.delay` must be a whole number ≥ 0, not "soon"',
        "5:13 writing a .html results file is not supported by assay yet (it comes in a later version); assay writes .json (promptfoo's results JSON), .jsonl and .csv",
      ],
    );
  });

  it('keys promptfoo does not know (a newer promptfoo’s) are warnings, as promptfoo drops them; tags have no effect', async () => {
    const suite = await loadText(
      `${BASE}evaluateOptions: {repaet: 2}\ncommandLineOptions: {tags: {team: evals}, fromTheFuture: true}\n`,
    );
    assert.deepEqual(
      suite.warnings.map((d) => d.message),
      [
        'unknown `evaluateOptions` key "repaet" is ignored (did you mean "repeat"?)',
        "`commandLineOptions.tags` has no effect in assay (it steers promptfoo's own console or database)",
        'unknown `commandLineOptions` key "fromTheFuture" is ignored',
      ],
    );
    assert.equal(suite.cases.length, 1);
  });

  it('warns about keys that only steer promptfoo’s console', async () => {
    const suite = await loadText(
      `${BASE}evaluateOptions: {silent: true}\ncommandLineOptions: {table: false}\n`,
    );
    assert.deepEqual(
      suite.warnings.map((d) => d.message),
      [
        "`evaluateOptions.silent` has no effect in assay (it steers promptfoo's own console or database)",
        "`commandLineOptions.table` has no effect in assay (it steers promptfoo's own console or database)",
      ],
    );
  });

  it('provider delay and env are kept on the provider; bad values are refused', async () => {
    const suite = await loadText(`prompts: ['{{q}}']
providers:
  - id: echo
    delay: 25
    env: {OPENAI_API_KEY: sk-provider-only-123, RETRIES: 3}
tests: [{vars: {q: one}}]
`);
    assert.equal(suite.providers[0].delayMs, 25);
    assert.deepEqual(suite.providers[0].env, { OPENAI_API_KEY: 'sk-provider-only-123', RETRIES: '3' });
    assert.deepEqual(suite.warnings, []);
    const diags = await errorsOf(`prompts: ['{{q}}']
providers:
  - {id: echo, delay: -1, env: [a]}
tests: [{vars: {q: one}}]
`);
    assert.deepEqual(
      diags.map((d) => d.message),
      [
        'provider `delay` must be a whole number of milliseconds ≥ 0',
        'provider `env` must be a mapping of names to text values',
      ],
    );
  });
});

describe('PROMPTFOO_* switches read by the loader', () => {
  const load = (env: Record<string, string>, config = BASE, files: Record<string, string> = {}) =>
    loadPromptfooSuite(writeSuite({ 'promptfooconfig.yaml': config, ...files }), { env });

  it('PROMPTFOO_DISABLE_VAR_EXPANSION keeps list vars whole', async () => {
    const config = `prompts: ['{{a}}']\nproviders: [echo]\ntests:\n  - vars: {a: [x, y]}\n`;
    assert.equal((await load({}, config)).cases.length, 2);
    const suite = await load({ PROMPTFOO_DISABLE_VAR_EXPANSION: 'true' }, config);
    assert.deepEqual(varsOf(suite.cases), [{ a: ['x', 'y'] }]);
  });

  it('PROMPTFOO_DISABLE_MULTIMEDIA_AS_BASE64 gives an image var as the file’s text', async () => {
    const config = `prompts: ['{{img}}']\nproviders: [echo]\ntests:\n  - vars: {img: file://pic.png}\n`;
    const files = { 'pic.png': ' not really a png \n' };
    const encoded = await load({}, config, files);
    assert.match(String(encoded.cases[0].vars.img), /^data:image\/png;base64,/);
    const raw = await load({ PROMPTFOO_DISABLE_MULTIMEDIA_AS_BASE64: '1' }, config, files);
    assert.equal(raw.cases[0].vars.img, 'not really a png');
  });

  it('PROMPTFOO_DELAY_MS is the fallback delay; the exit-code variables become a pass-rate rule', async () => {
    const suite = await load({
      PROMPTFOO_DELAY_MS: '30',
      PROMPTFOO_PASS_RATE_THRESHOLD: '50',
      PROMPTFOO_FAILED_TEST_EXIT_CODE: 'x',
    });
    assert.deepEqual(suite.runDefaults, { fallbackDelayMs: 30, passRatePercent: 50, failedExitCode: 100 });
    const codeOnly = await load({ PROMPTFOO_FAILED_TEST_EXIT_CODE: '0' });
    assert.deepEqual(codeOnly.runDefaults, { passRatePercent: 100, failedExitCode: 0 });
    assert.equal((await load({})).runDefaults, undefined);
  });

  it('a switch assay does not honour is named in a warning when set (also from the config’s env block)', async () => {
    const suite = await load(
      { PROMPTFOO_DISABLE_TEMPLATING: 'true', PROMPTFOO_STRIP_PROMPT_TEXT: 'false' },
      `${BASE}env: {PROMPTFOO_SHORT_CIRCUIT_TEST_FAILURES: 'true'}\n`,
    );
    assert.deepEqual(
      suite.warnings.map((d) => d.message),
      [
        'PROMPTFOO_DISABLE_TEMPLATING is set, but assay does not honour it: prompts and assertion values are still rendered',
        'PROMPTFOO_SHORT_CIRCUIT_TEST_FAILURES is set, but assay does not honour it: every assertion of a test is still run and scored',
      ],
    );
    assert.ok(suite.warnings.every((d) => d.file && dirname(d.file) !== ''));
  });
});
