// scanLines reads results.jsonl line by line with exact byte offsets, whatever the line lengths:
// lines spanning many read chunks (a 1 MB reply), empty lines, no final newline, multi-byte text.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { scanLines } from '../../src/runlog/lines.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-lines-');
after(() => tmp.cleanup());

describe('scanLines', () => {
  it('gives every non-empty line with its byte offset and number, long lines included', async () => {
    const long = `{"x":"${'é'.repeat(600_000)}"}`; // 1.2 MB: many 64 KB read chunks
    const text = `{"a":1}\n\n${long}\n{"b":"日本"}\n{"torn":`;
    const path = join(tmp.dir, 'results.jsonl');
    writeFileSync(path, text);
    const bytes = readFileSync(path);
    const seen: { text: string; offset: number; n: number }[] = [];
    await scanLines(path, (line, offset, n) => seen.push({ text: line.toString('utf8'), offset, n }));
    assert.deepEqual(
      seen.map((l) => [l.n, l.text.length]),
      [
        [1, 7],
        [3, long.length],
        [4, 10],
      ],
    );
    assert.equal(seen[1].text, long);
    for (const l of seen)
      assert.equal(bytes.toString('utf8', l.offset, l.offset + Buffer.byteLength(l.text)), l.text);
  });
});

describe('outputs from a log with a job logged twice', () => {
  it('write each job once (the first line of its key)', async () => {
    const { resultLinesInPlanOrder } = await import('../../src/runlog/reader.js');
    const dir = join(tmp.dir, 'dup-run');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({
        runId: 'r',
        status: 'complete',
        suite: { name: 's', prompts: [{ id: 'p' }] },
        providers: [{ key: 'echo', id: 'echo' }],
        options: { repeat: 1 },
        plannedJobs: 2,
      }),
    );
    const line = (key: string, output: string) =>
      JSON.stringify({
        v: 1,
        key,
        caseIndex: key === 'a' ? 0 : 1,
        trial: 0,
        providerId: 'echo',
        promptId: 'p',
        caseId: key,
        status: 'pass',
        verdicts: [],
        score: 1,
        output,
      });
    writeFileSync(
      join(dir, 'results.jsonl'),
      `${[line('a', 'first'), line('b', 'b'), line('a', 'again')].join('\n')}\n`,
    );
    const out: string[] = [];
    for await (const l of resultLinesInPlanOrder(dir)) out.push((JSON.parse(l) as { output: string }).output);
    assert.deepEqual(out, ['first', 'b']);
  });
});

describe('a merge that stopped half-way', () => {
  it('is never taken for an unfinished run by a bare --resume', async () => {
    const { findLatestUnfinishedRun } = await import('../../src/runlog/resume.js');
    const { mkdirSync } = await import('node:fs');
    const runsDir = join(tmp.dir, 'runs-merging');
    const hidden = join(runsDir, '.20250101T000000Z-abcdef.merging');
    mkdirSync(hidden, { recursive: true });
    const manifest = {
      runId: '20250101T000000Z-abcdef',
      status: 'running',
      suite: { name: 's', contentHash: 'h', prompts: [] },
      providers: [],
      options: { repeat: 1 },
      plannedJobs: 1,
    };
    writeFileSync(join(hidden, 'manifest.json'), JSON.stringify(manifest));
    assert.equal(findLatestUnfinishedRun(runsDir, 'h'), undefined);
    const visible = join(runsDir, '20250101T000000Z-abcdef');
    mkdirSync(visible, { recursive: true });
    writeFileSync(join(visible, 'manifest.json'), JSON.stringify(manifest));
    assert.equal(findLatestUnfinishedRun(runsDir, 'h'), visible);
  });
});

describe('the hidden folder of a merge killed half-way', () => {
  it('is never removed while its merge runs, nor without the marker a merge writes in it (issue 30)', async () => {
    const { removeDeadMerges } = await import('../../src/runlog/merge.js');
    const { mkdirSync, existsSync } = await import('node:fs');
    const runsDir = join(tmp.dir, 'runs-dead-merge');
    // pid 2^22 + 1 is beyond Linux's default pid_max: no process has it. A folder of that name with
    // no marker is not one a merge made (a killed merge's own is removed: test/runlog/removes-only-its-own.test.ts).
    const lookalike = join(runsDir, '.20250101T000000Z-abcdef.merging-4194305');
    const live = join(runsDir, `.20250101T000000Z-fedcba.merging-${process.pid}`);
    const run = join(runsDir, '20250101T000000Z-abcdef');
    for (const d of [lookalike, live, run]) mkdirSync(d, { recursive: true });
    writeFileSync(join(lookalike, 'results.jsonl'), 'a copy of every result\n');
    removeDeadMerges(runsDir);
    assert.equal(existsSync(lookalike), true);
    assert.equal(existsSync(live), true);
    assert.equal(existsSync(run), true);
  });
});
