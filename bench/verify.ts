/** Counts the results in each tool's `-o out.json`, so no run's errors or missing results go unseen. */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Result counts of one run. */
export interface Tally {
  total: number;
  pass: number;
  fail: number;
  error: number;
  /** Why the output could not be read, if it could not. */
  problem?: string;
}

const empty = (): Tally => ({ total: 0, pass: 0, fail: 0, error: 0 });

/** Reads assay's JSON output (`{run, scorecard, results[]}`, one result per line) as a stream. */
export async function tallyAssay(file: string): Promise<Tally> {
  const t = empty();
  if (!existsSync(file)) return { ...t, problem: 'no output file' };
  const lines = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let inResults = false;
  for await (const raw of lines) {
    if (!inResults) {
      inResults = raw.startsWith('"results": [');
      continue;
    }
    if (!raw.startsWith('{')) continue;
    const line = raw.endsWith(',') ? raw.slice(0, -1) : raw;
    const result = JSON.parse(line) as { status?: string };
    count(t, result.status === 'skip' ? 'fail' : result.status);
  }
  if (!inResults) t.problem = 'no results array';
  return t;
}

interface PromptfooResult {
  success?: boolean;
  failureReason?: number;
  error?: string | null;
}

interface PromptfooOutput {
  results?: { results?: PromptfooResult[]; stats?: { successes: number; failures: number; errors: number } };
}

/** Largest promptfoo output parsed whole; bigger ones are scanned for `failureReason` values instead. */
const PARSE_LIMIT = 256 * 1024 * 1024;

/** Reads promptfoo's JSON output (`{evalId, results: {results[], stats}}`). */
export async function tallyPromptfoo(file: string): Promise<Tally> {
  const t = empty();
  if (!existsSync(file)) return { ...t, problem: 'no output file' };
  if (statSync(file).size > PARSE_LIMIT) return scanPromptfoo(file);
  let parsed: PromptfooOutput;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as PromptfooOutput;
  } catch (err) {
    return { ...t, problem: `unreadable output: ${(err as Error).message}` };
  }
  const results = parsed.results?.results;
  if (!Array.isArray(results)) return { ...t, problem: 'no results array' };
  for (const r of results) {
    // promptfoo's ResultFailureReason: 0 none, 1 assertion failed, 2 error.
    count(t, r.success ? 'pass' : r.failureReason === 2 ? 'error' : 'fail');
  }
  return t;
}

/** Counts `"failureReason": N` occurrences without holding the file in one string. */
async function scanPromptfoo(file: string): Promise<Tally> {
  const t = empty();
  let carry = '';
  const re = /"failureReason":\s*(\d)/g;
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = carry + (chunk as string);
    let lastEnd = 0;
    for (const m of text.matchAll(re)) {
      count(t, m[1] === '0' ? 'pass' : m[1] === '2' ? 'error' : 'fail');
      lastEnd = (m.index ?? 0) + m[0].length;
    }
    carry = text.slice(Math.max(lastEnd, text.length - 64));
  }
  return t;
}

function count(t: Tally, status: string | undefined): void {
  t.total++;
  if (status === 'pass') t.pass++;
  else if (status === 'fail') t.fail++;
  else t.error++;
}

/** A short correctness note: `10000/10000 pass`, or the counts that are off. */
export function describeTally(t: Tally, expected: number): string {
  if (t.problem) return `⚠ ${t.problem}`;
  const parts: string[] = [];
  if (t.pass === expected && t.total === expected) return `${t.pass}/${expected} pass`;
  parts.push(`${t.pass}/${expected} pass`);
  if (t.fail) parts.push(`⚠ ${t.fail} fail`);
  if (t.error) parts.push(`⚠ ${t.error} errors`);
  if (t.total < expected) parts.push(`⚠ ${expected - t.total} missing`);
  if (t.total > expected) parts.push(`⚠ ${t.total - expected} extra`);
  return parts.join(', ');
}
