import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { JobResult } from '../core/types.js';
import { scanLines } from './lines.js';
import type { RunManifest } from './types.js';
import { checkVersion } from './version.js';

/** Reads a run's manifest.json; refuses one written by a newer assay (InputError). */
export function readManifest(runDir: string): RunManifest {
  const file = join(runDir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as RunManifest;
  checkVersion(manifest.schemaVersion, { file }, 'manifest.json schemaVersion');
  return manifest;
}

/** A results line's version checked (a newer one is refused) and taken off the result. */
function versioned(parsed: JobResult & { v?: unknown }, file: string, line: number): JobResult {
  if (parsed.v !== undefined) {
    checkVersion(parsed.v, { file, line }, 'results line version');
    delete parsed.v;
  }
  return parsed;
}

/**
 * Streams a run's results.jsonl. A torn last line (the process died mid-write) is skipped; a torn
 * line anywhere else means the file was damaged, and is reported through `onBadLine`.
 */
export async function* readResults(
  runDir: string,
  onBadLine?: (lineNumber: number, text: string) => void,
): AsyncGenerator<JobResult> {
  const path = join(runDir, 'results.jsonl');
  if (!existsSync(path)) return;
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let lineNumber = 0;
  let pendingBad: { n: number; text: string } | undefined;
  for await (const line of lines) {
    lineNumber++;
    if (pendingBad) {
      onBadLine?.(pendingBad.n, pendingBad.text);
      pendingBad = undefined;
    }
    if (line.length === 0) continue;
    let parsed: JobResult;
    try {
      parsed = JSON.parse(line) as JobResult;
    } catch {
      pendingBad = { n: lineNumber, text: line };
      continue;
    }
    yield versioned(parsed, path, lineNumber);
  }
}

export async function* resultLinesInPlanOrder(runDir: string): AsyncGenerator<string> {
  const path = join(runDir, 'results.jsonl');
  if (!existsSync(path)) return;
  const manifest = readManifest(runDir);
  // Columns the manifest does not list (an older log) sort after the listed ones, in order of appearance.
  const providerOrder = new Map(manifest.providers.map((p, i) => [String(p.key ?? p.id), i]));
  const promptOrder = new Map(manifest.suite.prompts.map((p, i) => [p.id, i]));
  const orderOf = (order: Map<string, number>, id: string): number => {
    let i = order.get(id);
    if (i === undefined) {
      i = order.size;
      order.set(id, i);
    }
    return i;
  };
  // A few numbers per result in typed arrays (not an object and a key string each): at a million
  // results the index is tens of MB, not hundreds.
  const index = new LineIndex();
  await scanLines(path, (line, offset, lineNumber) => {
    let parsed: (JobResult & { v?: unknown }) | undefined;
    try {
      parsed = JSON.parse(line.toString('utf8')) as JobResult & { v?: unknown };
    } catch {
      return; // a torn line: not a result
    }
    checkVersion(parsed.v, { file: path, line: lineNumber }, 'results line version');
    index.add(
      parsed.caseIndex ?? Number.MAX_SAFE_INTEGER,
      parsed.trial ?? 0,
      orderOf(providerOrder, parsed.providerId),
      orderOf(promptOrder, parsed.promptId),
      offset,
      line.length,
    );
  });
  const order = index.sorted();
  const fd = openSync(path, 'r');
  try {
    let buffer = Buffer.alloc(64 * 1024);
    let previous = -1;
    for (const i of order) {
      // A job logged twice (two processes that once both ran it) has one plan position: the first
      // line logged is written out, the later one skipped.
      if (previous >= 0 && index.samePosition(previous, i)) continue;
      previous = i;
      const length = index.length[i];
      if (length > buffer.length) buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, index.offset[i]);
      yield buffer.toString('utf8', 0, length);
    }
  } finally {
    closeSync(fd);
  }
}

/** Plan positions and byte ranges of a log's lines, column by column in growable typed arrays. */
class LineIndex {
  size = 0;
  caseIndex = new Float64Array(1024);
  trial = new Uint32Array(1024);
  provider = new Uint32Array(1024);
  prompt = new Uint32Array(1024);
  offset = new Float64Array(1024);
  length = new Float64Array(1024);

  add(
    caseIndex: number,
    trial: number,
    provider: number,
    prompt: number,
    offset: number,
    length: number,
  ): void {
    if (this.size === this.offset.length) this.grow();
    const i = this.size++;
    this.caseIndex[i] = caseIndex;
    this.trial[i] = trial;
    this.provider[i] = provider;
    this.prompt[i] = prompt;
    this.offset[i] = offset;
    this.length[i] = length;
  }

  /** Line numbers (0-based) in plan order (case, trial, provider, prompt), ties in log order. */
  sorted(): Uint32Array {
    const order = new Uint32Array(this.size);
    for (let i = 0; i < this.size; i++) order[i] = i;
    const { caseIndex, trial, provider, prompt, offset } = this;
    return order.sort(
      (a, b) =>
        caseIndex[a] - caseIndex[b] ||
        trial[a] - trial[b] ||
        provider[a] - provider[b] ||
        prompt[a] - prompt[b] ||
        offset[a] - offset[b],
    );
  }

  samePosition(a: number, b: number): boolean {
    return (
      this.caseIndex[a] === this.caseIndex[b] &&
      this.trial[a] === this.trial[b] &&
      this.provider[a] === this.provider[b] &&
      this.prompt[a] === this.prompt[b]
    );
  }

  private grow(): void {
    const n = this.size * 2;
    const grown = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.caseIndex = grown(this.caseIndex, (k) => new Float64Array(k));
    this.trial = grown(this.trial, (k) => new Uint32Array(k));
    this.provider = grown(this.provider, (k) => new Uint32Array(k));
    this.prompt = grown(this.prompt, (k) => new Uint32Array(k));
    this.offset = grown(this.offset, (k) => new Float64Array(k));
    this.length = grown(this.length, (k) => new Float64Array(k));
  }
}
