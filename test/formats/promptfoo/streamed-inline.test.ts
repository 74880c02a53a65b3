// A big config's inline tests are streamed: the config is read without its `tests:` sequence,
// whose items are read a chunk at a time on each pass. A streamed suite must be the same suite as
// the one read whole (cases, ids, refs, lines, diagnostics, results); a config whose tests cannot
// be read exactly that way (aliases, `{path: …}` entries, scenarios, `$ref`, a broken item) is
// read whole.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { caseCount } from '../../../src/core/cases.js';
import { InputError } from '../../../src/core/errors.js';
import type { Case, Suite } from '../../../src/core/types.js';
import { evaluate } from '../../../src/evaluate.js';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { STREAM_ABOVE_BYTES } from '../../../src/formats/promptfoo/row-files.js';
import { YamlFile } from '../../../src/formats/promptfoo/source.js';
import { runCli } from '../../support/cli.js';
import { resultsInCaseOrder } from '../../support/runs.js';
import { ENV, writeSuite } from './helpers.js';

const runsDirs: string[] = [];
after(() => {
  for (const d of runsDirs) rmSync(d, { recursive: true, force: true });
});

const env = { ...ENV, TOPIC_SUFFIX: 'from env' };
const load = (path: string, stream: boolean): Promise<Suite> =>
  loadPromptfooSuite(path, { env, streamAboveBytes: stream ? 0 : Number.POSITIVE_INFINITY });

/** Diagnostics of a load that fails, as `file:line:col message`. */
async function failure(path: string, stream: boolean): Promise<string[]> {
  try {
    await load(path, stream);
  } catch (err) {
    assert.ok(err instanceof InputError, String(err));
    return err.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.severity} ${d.message}`);
  }
  assert.fail('expected a load error');
}

/** Test `i` written in one of several YAML styles (so items differ in shape and size). */
function inlineTest(i: number): string {
  switch (i % 7) {
    case 0:
      return `  - vars:\n      topic: "subject ${i}"\n    assert:\n      - type: contains\n        value: "subject ${i}"\n`;
    case 1:
      // A block scalar that keeps its trailing blank lines, and a comment between items.
      return `  - description: block ${i}\n    vars:\n      topic: |+\n        line one ${i}\n        line two\n\n  # a comment between items\n`;
    case 2:
      // A list var (expanded into two cases), a provider restriction, a flow mapping.
      return `  - vars: {topic: [a${i}, b${i}]}\n    providers: [echo]\n    assert: [{type: icontains, value: A${i}}]\n`;
    case 3:
      // A merge key inside the item, and a {{ env }} template rendered at load time.
      return `  - vars:\n      <<: {base: kept, topic: overridden}\n      topic: "t${i} {{ env.TOPIC_SUFFIX }}"\n    metadata: {n: ${i}}\n`;
    case 4:
      // A double-quoted scalar over two lines, a folded scalar, an anchor used in the item.
      return `  - vars:\n      topic: "two\n        lines ${i}"\n      other: &o >\n        folded ${i}\n    assert:\n      - type: regex\n        value: 'lines \\d+'\n`;
    case 5:
      // Compact nested sequence items and an options block.
      return `  -\n    vars:\n      topic: plain ${i}\n    options:\n      prefix: "P: "\n    threshold: 0.5\n    assert:\n      - type: contains\n        value: plain\n        weight: 2\n`;
    default:
      return `  - vars:\n      topic: 'single ''quoted'' ${i}'\n    description: d${i} # a trailing comment\n`;
  }
}

/** A config of `n` inline tests (big enough for the fast reader), with `head` and `tail` around them. */
function bigConfig(
  n: number,
  opts: { head?: string; tail?: string; item?: (i: number) => string } = {},
): string {
  const items: string[] = [];
  for (let i = 0; i < n; i++) items.push((opts.item ?? inlineTest)(i));
  return `${opts.head ?? ''}prompts:\n  - "About {{topic}}"\nproviders:\n  - echo\ntests:\n${items.join('')}${
    opts.tail ?? 'defaultTest:\n  assert:\n    - type: not-contains\n      value: nothing\n'
  }`;
}

describe('streamed inline tests (a big config)', () => {
  it('are the same suite as when read whole: cases, ids, refs, lines, warnings, hash', async () => {
    const text = bigConfig(3000, { head: 'description: big inline\n' });
    assert.ok(text.length > 300 * 1024, `${text.length} chars: the fast reader reads it`);
    const path = writeSuite({ 'promptfooconfig.yaml': text });
    const whole = await load(path, false);
    const streamed = await load(path, true);
    assert.equal(whole.stream, undefined);
    assert.ok(streamed.stream, 'the big config is streamed');
    assert.equal(caseCount(streamed), whole.cases.length);
    assert.ok(whole.cases.length > 3000, 'list vars were expanded');
    assert.equal(streamed.source.contentHash, whole.source.contentHash);
    assert.equal(streamed.name, 'big inline');
    assert.deepEqual(streamed.warnings, whole.warnings);
    const cases = [...streamed.stream];
    assert.deepEqual(cases, whole.cases);
    // The lines are the config's own: test 7's case is written on its line.
    const line7 = text.split('\n').findIndex((l) => l.includes('subject 7"')) + 1;
    assert.equal(cases.find((c) => c.vars.topic === 'subject 7')?.provenance?.source?.line, line7 - 1);
    assert.equal(cases.find((c) => c.metadata?.n === 3)?.vars.topic, 't3 from env');
    assert.equal(cases.find((c) => c.metadata?.n === 3)?.vars.base, 'kept');
    assert.equal(cases.find((c) => c.description === 'block 1')?.vars.topic, 'line one 1\nline two\n\n');
    // A second pass gives the very same cases; `cases` holds them for a library caller.
    assert.deepEqual([...streamed.stream], cases);
    assert.deepEqual(streamed.cases, whole.cases);
  });

  it('give later passes the values and lines the first pass read, even where JSON cannot carry a value', async () => {
    // Later passes read what the first kept (JSON text); .nan, .inf and -0 are not JSON: their
    // chunk is read from the YAML again. An own `__proto__` key stays an own key.
    const odd = (i: number): string =>
      i === 1234
        ? '  - vars: {topic: odd}\n    metadata: {nan: .nan, inf: -.inf, zero: -0}\n'
        : i === 2222
          ? '  - vars:\n      topic: proto\n      __proto__: {polluted: yes}\n'
          : inlineTest(i);
    const path = writeSuite({ 'promptfooconfig.yaml': bigConfig(3000, { item: odd }) });
    const whole = await load(path, false);
    const streamed = await load(path, true);
    assert.ok(streamed.stream);
    const again = [...streamed.stream];
    assert.deepEqual(again, whole.cases);
    const odd1234 = again.find((c) => c.vars.topic === 'odd');
    assert.ok(
      Number.isNaN(odd1234?.metadata?.nan) && Object.is(odd1234?.metadata?.zero, -0),
      JSON.stringify(odd1234?.metadata),
    );
    const proto = again.find((c) => c.vars.topic === 'proto');
    assert.ok(proto && !('polluted' in {}));
    for (let pass = 0; pass < 2; pass++) assert.deepEqual([...streamed.stream], whole.cases);
  });

  it('answer on a later pass where a value is even when the first pass did not ask', () => {
    const text = bigConfig(3000);
    const split = { key: 'tests', minChars: 0, refuseItemKeys: ['path', '<<'] };
    const big = new YamlFile('c.yaml', text, { split });
    const whole = new YamlFile('c.yaml', text);
    assert.ok(big.split && !whole.split);
    const paths = [[], ['vars'], ['vars', 'topic'], ['assert', 0, 'value'], ['nothing', 'here']] as const;
    // The first pass asks only where each item is; the second asks more, and the first again.
    for (const raw of big.split.items()) raw.at();
    let i = 0;
    for (const raw of big.split.items()) {
      for (const path of paths) {
        assert.deepEqual(raw.at(path), whole.locate(['tests', i, ...path]), `${i} ${path}`);
        assert.deepEqual(raw.at(path, true), whole.locator(['tests', i])(path, true), `${i} ${path} key`);
      }
      i++;
    }
    assert.equal(i, 3000);
  });

  it('report every problem with its line, in the order the config read whole gives', async () => {
    const bad = (i: number): string => {
      if (i === 1500) return '  - vars: {topic: x}\n    asserts:\n      - type: contains\n        value: x\n';
      if (i === 2100) return '  - vars: {topic: y}\n    providers: [nobody]\n';
      if (i === 2900) return '  - vars: {topic: z}\n    assert:\n      - type: no-such-type\n';
      if (i === 2950) return '  - vars: {topic: w}\n    colour: blue\n';
      return inlineTest(i);
    };
    const path = writeSuite({ 'promptfooconfig.yaml': bigConfig(3000, { item: bad }) });
    const whole = await failure(path, false);
    assert.equal(whole.length, 3, whole.join('\n'));
    assert.ok(
      whole.some((m) => m.includes('nobody')),
      whole.join('\n'),
    );
    assert.deepEqual(await failure(path, true), whole);
  });

  for (const [name, config] of [
    // An anchor outside `tests:` used by a test (an alias anywhere: read whole, as before).
    [
      'an alias of an anchor outside the tests',
      bigConfig(2500, {
        head: 'x-base: &base\n  topic: from anchor\n',
        item: (i) => (i === 7 ? '  - vars: *base\n' : inlineTest(i)),
      }),
    ],
    [
      'a `{path: …}` entry',
      bigConfig(2500, { item: (i) => (i === 1200 ? '  - path: file://more.csv\n' : inlineTest(i)) }),
    ],
    [
      'a test file among the tests',
      bigConfig(2500, { item: (i) => (i === 5 ? '  - file://more.csv\n' : inlineTest(i)) }),
    ],
    [
      "a `<<` merge at a test's top level",
      bigConfig(2500, { item: (i) => (i === 9 ? '  - <<: {vars: {topic: m}}\n' : inlineTest(i)) }),
    ],
    [
      'scenarios',
      bigConfig(2500, {
        tail: 'scenarios:\n  - config: [{vars: {extra: 1}}]\n    tests: [{vars: {topic: s}}]\n',
      }),
    ],
    [
      'a `$ref`',
      bigConfig(2500, {
        head: 'shared:\n  check: {type: contains, value: a}\n',
        item: (i) =>
          i === 3 ? '  - vars: {topic: a}\n    assert: [{$ref: "#/shared/check"}]\n' : inlineTest(i),
      }),
    ],
  ] as const) {
    it(`are read whole when the config has ${name}, as before`, async () => {
      const path = writeSuite({ 'promptfooconfig.yaml': config, 'more.csv': 'topic\nfrom csv\n' });
      const whole = await load(path, false);
      const big = await load(path, true);
      assert.equal(big.stream, undefined, 'read whole');
      assert.deepEqual(big.cases, whole.cases);
      assert.ok(whole.cases.length >= 2500);
    });
  }

  it("are read whole, with the exact reader's diagnosis, when one item is broken", async () => {
    // A duplicate key in one test: js-yaml reads no such item, the yaml package says where it is.
    const path = writeSuite({
      'promptfooconfig.yaml': bigConfig(2500, {
        item: (i) => (i === 2000 ? '  - vars: {topic: a}\n    vars: {topic: b}\n' : inlineTest(i)),
      }),
    });
    const whole = await failure(path, false);
    assert.ok(
      whole.some((m) => m.includes('invalid YAML')),
      whole.join('\n'),
    );
    assert.deepEqual(await failure(path, true), whole);
  });

  it('run without building the case array, with the results of the suite read whole', async () => {
    const path = writeSuite({ 'promptfooconfig.yaml': bigConfig(2400) });
    const runsDir = mkdtempSync(join(tmpdir(), 'assay-streamed-inline-'));
    runsDirs.push(runsDir);
    const resultsOf = async (suite: Suite, filters?: { firstN?: number; sample?: number }) => {
      const r = await evaluate({ suite, runsDir, filters });
      assert.equal(r.manifest.status, 'complete');
      return resultsInCaseOrder(r.runDir);
    };
    for (const filters of [undefined, { firstN: 30 }, { sample: 25 }]) {
      const whole = await resultsOf(await load(path, false), filters);
      const streamed = await load(path, true);
      assert.ok(streamed.stream);
      Object.defineProperty(streamed, 'cases', {
        get: (): Case[] => assert.fail('a run read every case of a streamed suite'),
      });
      assert.deepEqual(await resultsOf(streamed, filters), whole);
      assert.ok(whole.length > 0);
    }
  });

  it("stop `assay eval` before any call, exit 2, at the bad test's line, in a config over the streaming size", async () => {
    const n = 40_000;
    const text = bigConfig(n, {
      item: (i) =>
        i === n - 10
          ? '  - vars: {topic: late}\n    assert:\n      - type: contians\n        value: x\n'
          : inlineTest(i),
    });
    assert.ok(Buffer.byteLength(text) > STREAM_ABOVE_BYTES, 'the CLI streams it');
    const path = writeSuite({ 'promptfooconfig.yaml': text });
    const dir = join(path, '..');
    const line = text.split('\n').indexOf('      - type: contians') + 1;
    const run = await runCli(['eval', '--no-progress', path], { cwd: dir });
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `promptfooconfig\\.yaml:${line}:15: tests\\[${n - 10}\\]\\.assert\\[0\\]: unknown assertion type "contians"`,
      ),
    );
    assert.equal(existsSync(join(dir, '.assay', 'runs')), false, 'no run was started');
  });
});
