// Reading results.jsonl line by line with each line's byte offset, in time linear in the file's
// size however long one line is (a 40 MB reply is one line): chunks of a line still open are kept
// aside and joined once, when its newline arrives, and every byte is scanned for newlines once.
import { createReadStream } from 'node:fs';

/** Calls `visit` with every non-empty line (as bytes, without its newline), its offset and its 1-based number. */
export async function scanLines(
  path: string,
  visit: (line: Buffer, offset: number, lineNumber: number) => void,
): Promise<void> {
  let parts: Buffer[] = [];
  let lineStart = 0;
  let offset = 0;
  let lineNumber = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, nl);
      const line = parts.length > 0 ? Buffer.concat([...parts, piece]) : piece;
      lineNumber++;
      if (line.length > 0) visit(line, lineStart, lineNumber);
      parts = [];
      from = nl + 1;
      lineStart = offset + from;
    }
    if (from < chunk.length) parts.push(chunk.subarray(from));
    offset += chunk.length;
  }
}
