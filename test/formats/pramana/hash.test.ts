import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sha256 } from '../../../src/core/hash.js';
import { compareCodePoints, pyJsonDumps } from '../../../src/core/python/json-dumps.js';
import { type PyValue, pyJsonLoads } from '../../../src/core/python/json-loads.js';
import { loadSuite } from '../../../src/formats/detect.js';
import { pramanaResultHash, pramanaSuiteHash } from '../../../src/formats/pramana/hash.js';
import { cleanEnv, runCli } from '../../support/cli.js';
import { fixture } from '../../support/paths.js';
import { tempDir } from '../../support/tmp.js';

// The vectors of the pramana spec (§2), computed from pramana's Python algorithm.
const TIERS = {
  cheap: {
    raw: '820f437d3b64946458aead99ef870170b7729f595da425c3a0613177104f2aee',
    hash: 'sha256:174f832683e268f6b25ad0c4b6ff0c87fcb4f9b4cf9a5cef2022f408e6a8e47f',
    canonicalLength: 2828,
  },
  moderate: {
    raw: '56ef8d0f8f13c70d633c011ac296fb39a7f8672eaa447f6209b27633ac69df0e',
    hash: 'sha256:080a6e138e82fe2cd93350620737ff6bd79d73bfd76d9b5f456845c3035b443f',
    canonicalLength: 7115,
    // What a port that writes non-ASCII raw (no ensure_ascii) would get.
    wrongRaw: 'sha256:93a079802a6aea957d9145538495e406d493e6bd08e549faed5015e71b6e1b1d',
  },
  comprehensive: {
    raw: '57fb922d35145c7df1d5f80c77bc6a3ac4e28678346f34d33700ce56a7691b5b',
    hash: 'sha256:3996983c0d0b8fde8b4a7284aec83e2153afe712bca77c80c2fff6f1ac9cec07',
    canonicalLength: 19191,
    wrongRaw: 'sha256:46b74969fbc01ae177b625c43a38086fb968baf0152f8f8a578bf6a9e551dc3a',
  },
} as const;

function tierValues(name: string): PyValue[] {
  return readFileSync(fixture('pramana', 'v1.0', `${name}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => pyJsonLoads(l));
}

function canonical(values: PyValue[]): string {
  const id = (v: PyValue): string => (v as Map<string, PyValue>).get('id') as string;
  const sorted = [...values].sort((a, b) => compareCodePoints(id(a), id(b)));
  return pyJsonDumps(sorted, { sortKeys: true, separators: [',', ':'] });
}

describe('pramana suite hash', () => {
  for (const [name, v] of Object.entries(TIERS)) {
    it(`${name}: the fixture bytes are pramana's and the hash is the spec's vector`, async () => {
      assert.equal(sha256(readFileSync(fixture('pramana', 'v1.0', `${name}.jsonl`))), v.raw);
      const values = tierValues(name);
      assert.equal(canonical(values).length, v.canonicalLength);
      assert.equal(pramanaSuiteHash(values), v.hash);
      const suite = await loadSuite(fixture('pramana', 'v1.0', `${name}.jsonl`));
      assert.equal(suite.source.nativeHash, v.hash);
    });
  }

  it('the negative vectors: writing non-ASCII raw gives the wrong digests (cheap is ASCII, so unaffected)', () => {
    for (const name of ['moderate', 'comprehensive'] as const) {
      const unescaped = canonical(tierValues(name)).replace(/\\u([0-9a-f]{4})/g, (_, h: string) =>
        String.fromCharCode(Number.parseInt(h, 16)),
      );
      const wrong = `sha256:${sha256(unescaped)}`;
      assert.equal(wrong, TIERS[name].wrongRaw);
      assert.notEqual(wrong, TIERS[name].hash);
    }
    const cheap = canonical(tierValues('cheap'));
    assert.match(cheap, /^[\x20-\x7e]*$/);
  });

  it("the fixture of pramana's own tests/test_hash.py", () => {
    const values = ['{"id": "test-001", "content": "test"}', '{"id": "test-002", "content": "test2"}'].map(
      (l) => pyJsonLoads(l),
    );
    assert.equal(
      canonical(values),
      '[{"content":"test","id":"test-001"},{"content":"test2","id":"test-002"}]',
    );
    assert.equal(
      pramanaSuiteHash(values),
      'sha256:60c2a64d9f3bb664d80a7489698f297dad3a3cb85a50344b752d3ba02e2b6ccf',
    );
  });

  it('sorts by id, sorts keys at every level, escapes non-ASCII, keeps 1.0', () => {
    const values = ['{"id": "b", "x": "\\u00e9", "n": 1.0}', '{"id": "a", "z": {"b": 2, "a": [3, 1]}}'].map(
      (l) => pyJsonLoads(l),
    );
    assert.equal(canonical(values), '[{"id":"a","z":{"a":[3,1],"b":2}},{"id":"b","n":1.0,"x":"\\u00e9"}]');
    assert.equal(
      pramanaSuiteHash(values),
      'sha256:828d3e5be5a663d39317a5f5612a8866ac2455d6e71c5db5e65aff65403e3926',
    );
  });

  it('hashes a real file with a float, a blank line and CRLF line ends the same way (assay hash path)', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const line = (id: string, extra: string): string =>
        `{"id": "${id}", "category": "factual", "input": "q", "ideal": "a", "assertion": {"type": "contains"}, "metadata": {"difficulty": "easy", "tokens_est": 1${extra}}}`;
      const file = join(dir, 'tier.jsonl');
      writeFileSync(file, `\r\n${line('b', ', "w": 1.0')}\r\n\r\n${line('a', '')}\r\n`);
      const suite = await loadSuite(file);
      const expected = pramanaSuiteHash([pyJsonLoads(line('b', ', "w": 1.0')), pyJsonLoads(line('a', ''))]);
      assert.equal(suite.source.nativeHash, expected);
      assert.match(canonical([pyJsonLoads(line('b', ', "w": 1.0'))]), /"w":1\.0/);
    } finally {
      cleanup();
    }
  });
});

describe('assay hash on any JSONL of objects with ids (pramana hash_suite does not validate)', () => {
  it("gives the spec's synthetic vectors, while eval still refuses such files", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const one = join(dir, 'one.jsonl');
      writeFileSync(one, '{"id": "test-001", "content": "test"}\n{"id": "test-002", "content": "test2"}\n');
      const two = join(dir, 'two.jsonl');
      writeFileSync(
        two,
        '{"id": "b", "x": "\\u00e9", "n": 1.0}\n\n{"id": "a", "z": {"b": 2, "a": [3, 1]}}\n',
      );
      const h1 = await runCli(['hash', one], { env: cleanEnv });
      assert.equal(h1.code, 0, h1.stderr);
      assert.equal(h1.stdout, 'sha256:60c2a64d9f3bb664d80a7489698f297dad3a3cb85a50344b752d3ba02e2b6ccf\n');
      assert.match(h1.stderr, /not a runnable suite; pramana's hash of its lines/);
      const h2 = await runCli(['hash', two], { env: cleanEnv });
      assert.equal(h2.stdout, 'sha256:828d3e5be5a663d39317a5f5612a8866ac2455d6e71c5db5e65aff65403e3926\n');
      const ev = await runCli(['eval', one, '-p', 'echo'], { env: cleanEnv });
      assert.equal(ev.code, 2);
      assert.match(ev.stderr, /not a suite assay recognises/);
      // A line without an id (pramana raises KeyError) or a broken line: no hash, the usual refusal.
      const noId = join(dir, 'noid.jsonl');
      writeFileSync(noId, '{"id": "a"}\n{"content": "x"}\n');
      const h3 = await runCli(['hash', noId], { env: cleanEnv });
      assert.equal(h3.code, 2);
      assert.match(h3.stderr, /not a suite assay recognises/);
    } finally {
      cleanup();
    }
  });
});

describe('pramana result hash', () => {
  it("is sha256 of model_id|test_id|output (the spec's vector)", () => {
    assert.equal(
      pramanaResultHash('gpt-4', 'test-001', 'output text'),
      'sha256:f07919412fca5b1019a6874900d2dfcb60dce9f2aaaa0dd128b5fcd457ac33dc',
    );
  });
});

describe('assay hash: the answers of pramana hash_suite on edge files (fixtures/pramana/hash-edges.json)', () => {
  // Recorded by generate-hash-edges.py with pramana's own hash.py: a hash, or the exception raised.
  const edges = JSON.parse(readFileSync(fixture('pramana', 'hash-edges.json'), 'utf8')) as Record<
    string,
    { text: string; hash?: string; error?: string }
  >;
  for (const [name, edge] of Object.entries(edges)) {
    it(`${name}: ${edge.hash ? 'the same hash' : `no hash (pramana raises ${edge.error?.split(':')[0]}), exit 2`}`, async () => {
      const { dir, cleanup } = tempDir();
      try {
        const file = join(dir, 'suite.jsonl');
        writeFileSync(file, edge.text);
        const r = await runCli(['hash', file], { env: cleanEnv });
        if (edge.hash) {
          assert.equal(r.code, 0, r.stderr);
          assert.equal(r.stdout, `${edge.hash}\n`);
          assert.match(r.stderr, /not a runnable suite; pramana's hash of its lines/);
        } else {
          assert.equal(r.code, 2, r.stdout);
          assert.equal(r.stdout, '');
        }
      } finally {
        cleanup();
      }
    });
  }

  it('a pramana tier with integer ids says why it does not run before its hash', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'ints.jsonl');
      writeFileSync(file, edges['pramana tier with int ids'].text);
      const r = await runCli(['hash', file], { env: cleanEnv });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /ints\.jsonl:1:.*id/);
      const ev = await runCli(['eval', file, '-p', 'echo'], { env: cleanEnv });
      assert.equal(ev.code, 2, 'pramana itself refuses to run it (pydantic: id must be a string)');
    } finally {
      cleanup();
    }
  });
});
