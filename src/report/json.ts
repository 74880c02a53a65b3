// `-o FILE.json` (assay's JSON: the run, the scorecard and every result) and `-o FILE.jsonl` (one
// result per line, as results.jsonl holds them, in plan order).
import { registerOutputFormat } from './outputs.js';

registerOutputFormat({
  name: 'json',
  layout: 'file',
  extensions: ['json'],
  description: "assay's JSON: {run, scorecard, results[]}",
  async write(run, out) {
    await out.write(
      `{\n"run": ${JSON.stringify(run.manifest)},\n"scorecard": ${JSON.stringify(run.scorecard)},\n"results": [`,
    );
    let first = true;
    for await (const block of run.resultLineBlocks()) {
      await out.write(commaJoined(block, first));
      first = false;
    }
    await out.write('\n]\n}\n');
  },
});

registerOutputFormat({
  name: 'jsonl',
  layout: 'file',
  extensions: ['jsonl'],
  description: 'one job result per line',
  async write(run, out) {
    for await (const block of run.resultLineBlocks()) await out.write(block);
  },
});

/**
 * A block of lines (each ending in a newline) as items of a JSON array: a newline before each, a
 * comma between them (and before the first unless `first`), no newline after the last. Copied as
 * bytes: decoding and encoding the text again cost more than the rest of out.json.
 */
function commaJoined(block: Buffer, first: boolean): Buffer {
  let lines = 0;
  for (let i = block.indexOf(10); i >= 0; i = block.indexOf(10, i + 1)) lines++;
  // Each line's newline becomes a comma and newline before the next; the last one is dropped.
  const out = Buffer.allocUnsafe(block.length + lines + (first ? 0 : 1) - 1);
  let o = 0;
  if (!first) out[o++] = 44;
  out[o++] = 10;
  let start = 0;
  for (let i = block.indexOf(10); i >= 0; i = block.indexOf(10, start)) {
    o += block.copy(out, o, start, i);
    start = i + 1;
    if (start < block.length) {
      out[o++] = 44;
      out[o++] = 10;
    }
  }
  return out.subarray(0, o);
}
