import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JobResult } from '../../src/core/types.js';
import {
  readManifest,
  readResults,
  resultLineBlocks,
  resultLinesInPlanOrder,
  setLiveIndex,
} from '../../src/runlog/reader.js';
import type { RunManifest } from '../../src/runlog/types.js';
import { newRunId, RunWriter } from '../../src/runlog/writer.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir();
after(tmp.cleanup);

function manifest(runId: string): RunManifest {
  return {
    runId,
    assayVersion: '0.0.0',
    status: 'running',
    suite: {
      id: 's',
      name: 's',
      format: 'test',
      path: 'x',
      contentHash: 'h',
      files: [],
      cases: 1,
      prompts: [],
    },
    providers: [],
    options: { repeat: 1, maxConcurrency: 1 },
    plannedJobs: 3,
    command: [],
    cwd: '.',
    startedAt: new Date().toISOString(),
  };
}

function result(i: number): JobResult {
  return {
    key: `k${i}`,
    caseId: 'c',
    caseIndex: 0,
    promptId: 'p',
    promptLabel: 'p',
    providerId: 'echo',
    trial: i,
    case: { vars: { text: 'line one\nline "two" ✓' } },
    prompt: { text: 't', messages: [{ role: 'user', content: 't' }] },
    status: 'pass',
    output: 'o',
    verdicts: [],
    score: 1,
    reason: 'ok',
    answer: { latencyMs: 1 },
    startedAt: new Date().toISOString(),
  };
}

async function collect(dir: string, bad: number[] = []): Promise<JobResult[]> {
  const out: JobResult[] = [];
  for await (const r of readResults(dir, (n) => bad.push(n))) out.push(r);
  return out;
}

describe('run log', () => {
  it('writes manifest.json first and results.jsonl one line per result, readable back', async () => {
    const w = RunWriter.create(tmp.dir, manifest(newRunId()));
    assert.equal(readManifest(w.dir).status, 'running');
    for (let i = 0; i < 3; i++) w.append(result(i));
    // Lines are on disk before close: a killed process loses nothing already appended.
    assert.equal(readFileSync(join(w.dir, 'results.jsonl'), 'utf8').trim().split('\n').length, 3);
    w.updateManifest({ status: 'complete' });
    w.writeJson('scorecard.json', { ok: true });
    w.close();
    const back = await collect(w.dir);
    assert.deepEqual(
      back,
      [result(0), result(1), result(2)].map((r) => ({ ...r, startedAt: back[r.trial].startedAt })),
    );
    assert.equal(readManifest(w.dir).status, 'complete');
  });

  it('with a batch, writes the results of one event-loop turn together, never more than the batch late', async () => {
    const w = RunWriter.create(tmp.dir, manifest(newRunId()), 4);
    const lines = () => readFileSync(join(w.dir, 'results.jsonl'), 'utf8').split('\n').length - 1;
    for (let i = 0; i < 3; i++) w.append(result(i));
    assert.equal(lines(), 0, 'three of a batch of four wait for the end of the turn');
    w.append(result(3));
    assert.equal(lines(), 4, 'a full batch is written at once');
    w.append(result(4));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(lines(), 5, 'the end of the turn writes the rest');
    w.append(result(5));
    w.close();
    assert.equal(lines(), 6, 'close writes what is pending');
    assert.deepEqual(
      (await collect(w.dir)).map((r) => r.trial),
      [0, 1, 2, 3, 4, 5],
    );
  });

  it('writes pending results when the process exits before the turn ends', () => {
    const runId = newRunId();
    const writer = new URL('../../src/runlog/writer.js', import.meta.url).href;
    const code = `import { RunWriter } from ${JSON.stringify(writer)};
const w = RunWriter.create(${JSON.stringify(tmp.dir)}, ${JSON.stringify(manifest(runId))}, 10);
w.append(${JSON.stringify(result(0))});
w.append(${JSON.stringify(result(1))});
process.exit(0);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const text = readFileSync(join(tmp.dir, runId, 'results.jsonl'), 'utf8');
    assert.equal(text.split('\n').length - 1, 2);
  });

  it('skips a torn last line silently and reports a torn line in the middle', async () => {
    const w = RunWriter.create(tmp.dir, manifest(newRunId()));
    w.append(result(0));
    w.close();
    const path = join(w.dir, 'results.jsonl');
    appendFileSync(path, '{"key":"k1","caseId":');
    const bad: number[] = [];
    assert.equal((await collect(w.dir, bad)).length, 1);
    assert.deepEqual(bad, [], 'a torn final line is the expected trace of a kill, not an error');
    appendFileSync(path, `\n${JSON.stringify(result(2))}\n`);
    const bad2: number[] = [];
    assert.equal((await collect(w.dir, bad2)).length, 2);
    assert.deepEqual(bad2, [2]);
  });

  it('run ids sort by time and are unique', () => {
    const a = newRunId(new Date('2026-01-01T00:00:00Z'));
    const b = newRunId(new Date('2026-01-02T00:00:00Z'));
    assert.ok(a < b);
    assert.match(a, /^20260101T000000Z-[0-9a-f]{6}$/);
    assert.notEqual(newRunId(), newRunId());
  });
});

describe('resultLineBlocks', () => {
  /** A log this process writes in plan order: small lines, a 2.4 MB one (longer than a block) of multi-byte text. */
  function writeRun(): string {
    const w = RunWriter.create(tmp.dir, manifest(newRunId()), 5);
    for (let i = 0; i < 3000; i++) {
      const r = result(i);
      r.caseIndex = i;
      r.trial = 0;
      r.output = i === 1700 ? 'é✓'.repeat(600_000) : `output ${i} ${'日本'.repeat(i % 300)}`;
      w.append(r);
    }
    w.close();
    return w.dir;
  }

  async function lines(dir: string): Promise<string[]> {
    const out: string[] = [];
    for await (const line of resultLinesInPlanOrder(dir)) out.push(line);
    return out;
  }

  async function blocks(dir: string): Promise<Buffer[]> {
    const out: Buffer[] = [];
    for await (const block of resultLineBlocks(dir)) out.push(block);
    return out;
  }

  it("gives resultLinesInPlanOrder's lines in blocks of whole lines, from the writer's index and from a scan alike", async () => {
    const dir = writeRun();
    const expected = await lines(dir);
    assert.equal(expected.length, 3000);
    const text = `${expected.join('\n')}\n`;
    const live = await blocks(dir);
    assert.ok(live.length > 2, `${live.length} blocks`);
    for (const b of live) assert.equal(b[b.length - 1], 10, 'a block ends with a newline');
    // Each block is its own (none is overwritten by the next).
    assert.equal(Buffer.concat(live).toString('utf8'), text);
    // The same log read by another process (no live index): gathered from the scan.
    setLiveIndex(join(dir, 'results.jsonl'), undefined);
    assert.equal(Buffer.concat(await blocks(dir)).toString('utf8'), text);
    assert.equal(readFileSync(join(dir, 'results.jsonl'), 'utf8'), text);
  });
});
