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

interface LineRef {
  caseIndex: number;
  trial: number;
  provider: number;
  prompt: number;
  offset: number;
  length: number;
}

/**
 * A run's results as raw JSON lines in plan order (case, trial, provider, prompt) rather than
 * completion order, so two runs of the same suite write identical output files. Holds only a small
 * index entry per result in memory; each line is read back from disk when its turn comes.
 */
export async function* resultLinesInPlanOrder(runDir: string): AsyncGenerator<string> {
  const path = join(runDir, 'results.jsonl');
  if (!existsSync(path)) return;
  const manifest = readManifest(runDir);
  const providerOrder = new Map(manifest.providers.map((p, i) => [String(p.key ?? p.id), i]));
  const promptOrder = new Map(manifest.suite.prompts.map((p, i) => [p.id, i]));
  const refs: LineRef[] = [];
  // A job key logged twice (two processes that once both ran a job) is written out once, the first.
  const seen = new Set<string>();
  await scanLines(path, (line, offset, lineNumber) => {
    let parsed: (JobResult & { v?: unknown }) | undefined;
    try {
      parsed = JSON.parse(line.toString('utf8')) as JobResult & { v?: unknown };
    } catch {
      return; // a torn line: not a result
    }
    checkVersion(parsed.v, { file: path, line: lineNumber }, 'results line version');
    if (seen.has(parsed.key)) return;
    seen.add(parsed.key);
    refs.push({
      caseIndex: parsed.caseIndex,
      trial: parsed.trial,
      provider: providerOrder.get(parsed.providerId) ?? Number.MAX_SAFE_INTEGER,
      prompt: promptOrder.get(parsed.promptId) ?? Number.MAX_SAFE_INTEGER,
      offset,
      length: line.length,
    });
  });
  refs.sort(
    (a, b) =>
      a.caseIndex - b.caseIndex || a.trial - b.trial || a.provider - b.provider || a.prompt - b.prompt,
  );
  const fd = openSync(path, 'r');
  try {
    let buffer = Buffer.alloc(64 * 1024);
    for (const ref of refs) {
      if (ref.length > buffer.length) buffer = Buffer.alloc(ref.length);
      readSync(fd, buffer, 0, ref.length, ref.offset);
      yield buffer.toString('utf8', 0, ref.length);
    }
  } finally {
    closeSync(fd);
  }
}
