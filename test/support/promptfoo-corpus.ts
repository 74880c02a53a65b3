// The promptfoo corpus (test/fixtures/promptfoo-corpus/, issue 32): real configs from public
// repositories, each run by promptfoo 0.123.1 (recorded by scripts/promptfoo-corpus.js record) and
// by assay against the same mock answers, and their results files compared row for row and field
// by field. This module holds what the recorder, the report and the test share: the command lines,
// the environment, the normalisation (the one place that says what is ignored), the pairing of
// rows and the field-by-field comparison, and the known-differences bookkeeping.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startAssayBatch } from './assay-batch.js';
import type { MockServer } from './mock-openai.js';
import { repoRoot } from './paths.js';

export const CORPUS_DIR = join(repoRoot, 'test', 'fixtures', 'promptfoo-corpus');

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON of either tool, read field by field
type Json = any;

/** One config of the corpus (corpus.json). */
export interface CorpusEntry {
  id: string;
  /** Unique short name: the recorded results are expected/<slug>.json. */
  slug: string;
  dir: string;
  config: string;
  repo: string;
  commit: string;
  license: string;
  licenseFile: string;
  files: string[];
  trimmed: { file: string; change: string; why: string }[];
  /** Files the config names that are not redistributed (code) or not present. */
  notShipped: string[];
  offline?: string;
  offlineChanges?: { path: string; what: string; why: string }[];
  /** Why the config has no offline run, when it has none. */
  dropped?: string;
}

export function readCorpus(): CorpusEntry[] {
  return (JSON.parse(readFileSync(join(CORPUS_DIR, 'corpus.json'), 'utf8')) as { configs: CorpusEntry[] })
    .configs;
}

/** A description no test has: `eval` with it loads the config and everything it names, then runs nothing. */
export const NEVER = '^assay-corpus-load-check-matches-no-test$';
/** "Does it load?" is asked of both tools with the same command line (plus each tool's output flags). */
export const LOAD_ARGS = ['--filter-pattern', NEVER, '--no-cache'];
/** The offline variants run with these (plus each tool's output flags). */
export const RUN_ARGS = ['--no-cache', '-j', '4'];

/** Dummy keys for every provider family the corpus names: a key's absence must not decide "loads". */
const DUMMY_KEYS = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GROQ_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'MISTRAL_API_KEY',
  'OPENROUTER_API_KEY',
  'AZURE_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'DEEPSEEK_API_KEY',
  'TOGETHER_API_KEY',
  'COHERE_API_KEY',
  'HF_API_TOKEN',
  'XAI_API_KEY',
  'WATSONX_AI_APIKEY',
  'WATSONX_AI_PROJECT_ID',
  // A config's own apiKeyEnvar (28-ehtb-doen).
  'LLM_API_KEY',
];

/**
 * The environment both tools run with: dummy keys, and the mock's base URLs for the offline runs
 * (a dead port for the load checks, which call no model). Variables that would point a provider
 * elsewhere are unset.
 */
export function toolEnv(
  mock: Pick<MockServer, 'url' | 'baseUrl'> | undefined,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    OPENAI_BASE_URL: mock ? mock.baseUrl : 'http://127.0.0.1:9/v1',
    ANTHROPIC_BASE_URL: mock ? mock.url : 'http://127.0.0.1:9',
    OPENAI_API_BASE_URL: undefined,
    OPENAI_API_HOST: undefined,
    OLLAMA_BASE_URL: undefined,
  };
  for (const k of DUMMY_KEYS) env[k] = 'sk-assay-corpus-dummy';
  return env;
}

/** Colour codes, the corpus's own path and the scratch folder out of a tool's message. */
export function scrub(text: string, scratch: string): string {
  return text
    .split(CORPUS_DIR)
    .join('<corpus>')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split(scratch)
    .join('<scratch>');
}

/** A tool's error message: its first line that names an error, then its last meaningful lines, without Node's warnings. */
export function lastLines(text: string, n = 4): string {
  const lines = text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter(
      (l) => l.trim() !== '' && !/ExperimentalWarning|--trace-warnings|^\s+at |Error log:|Debug log:/.test(l),
    );
  const tail = lines.slice(-n);
  const first = lines.find((l) => /error|invalid|refus|cannot|not found|unknown/i.test(l));
  return (first && !tail.includes(first) ? [first, ...tail] : tail).join('\n');
}

// ------------------------------------------------------------------------------------------------
// Normalisation: the one place that says what is not compared.
// ------------------------------------------------------------------------------------------------

/**
 * Row fields never compared: times, ids and run-specific values. Paths are dotted; `[]` stands for
 * every element of an array. Everything else in a row is compared.
 */
export const IGNORED_ROW_FIELDS = [
  'id', // a random row id
  'promptId', // a hash of the prompt: each tool's own scheme
  'prompt.id',
  'latencyMs',
  'response.latencyMs',
  'evalId',
  'createdAt',
  'updatedAt',
  'timestamp',
];

/** Top-level and `results` fields whose values are times or ids (their presence is still compared). */
export const IGNORED_TOP_FIELDS = [
  'evalId',
  'results.timestamp',
  'metadata',
  'results.stats.durationMs',
  'results.stats.evaluationDurationMs',
];

/** Run-specific text: absolute paths of the config's folder and the mock's port. */
export function normaliseText(s: string, dir: string): string {
  return s
    .split(dir)
    .join('<dir>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/\b\d+(\.\d+)?ms\b/g, '<ms>');
}

function deepMap(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => deepMap(x, f));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = deepMap(x, f);
    return out;
  }
  return v;
}

function deletePath(obj: Json, path: string[]): void {
  if (!obj || typeof obj !== 'object') return;
  const [head, ...tail] = path;
  if (head === '[]') {
    if (Array.isArray(obj)) for (const x of obj) deletePath(x, tail);
    return;
  }
  if (tail.length === 0) delete obj[head];
  else deletePath(obj[head], tail);
}

/** The comparable form of a results file (promptfoo's own, or assay's `--output-format promptfoo`). */
export interface NormalResults {
  /** The top-level keys and the keys of `results`. */
  shape: { top: string[]; results: string[] };
  stats: Json;
  /** Rows in (testIdx, promptIdx) order. */
  results: Json[];
}

export function normalise(output: Json, opts: { dir: string }): NormalResults {
  const f = (s: string) => normaliseText(s, opts.dir);
  const rows: Json[] = (output?.results?.results ?? []).map((r: Json) => {
    const row = deepMap(structuredClone(r), f) as Json;
    for (const p of IGNORED_ROW_FIELDS) deletePath(row, p.split('.'));
    return row;
  });
  rows.sort((a, b) => a.testIdx - b.testIdx || a.promptIdx - b.promptIdx);
  const stats = deepMap(structuredClone(output?.results?.stats ?? null), f) as Json;
  if (stats) {
    delete stats.durationMs;
    delete stats.evaluationDurationMs;
  }
  return {
    shape: {
      top: Object.keys(output ?? {}).sort(),
      results: Object.keys(output?.results ?? {}).sort(),
    },
    stats,
    results: rows,
  };
}

/** Runs a command, collecting its output. */
export function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

export function configDir(entry: CorpusEntry): string {
  return dirname(join(CORPUS_DIR, entry.dir, entry.config));
}

/** promptfoo's normalised results for a config's offline variant (gzipped JSON: the corpus stays small). */
export function expectedFile(entry: CorpusEntry): string {
  return join(CORPUS_DIR, 'expected', `${entry.slug}.json.gz`);
}

export function readExpected(
  entry: CorpusEntry,
): NormalResults | { noResults: true; exit: number; message: string } | undefined {
  const file = expectedFile(entry);
  return existsSync(file) ? JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) : undefined;
}

// ------------------------------------------------------------------------------------------------
// Comparison: rows paired by (testIdx, promptIdx), every field compared.
// ------------------------------------------------------------------------------------------------

/** Fields whose keys are the user's (var names, metric names): a difference is reported at the field itself. */
const USER_KEYED = new Set([
  'vars',
  'namedScores',
  'metadata',
  'testCase.vars',
  'testCase.metadata',
  'testCase.options',
  'response.metadata',
  'testCase.assert',
  'prompt.config',
]);

/** The field a difference at `path` is counted under (array indices collapsed to `[]`), and how many of its segments that field spans. */
export function fieldOf(path: (string | number)[]): { label: string; depth: number } {
  const segs = path.map((p) => (typeof p === 'number' ? '[]' : p));
  const at = (n: number) => ({
    label: segs
      .slice(0, n)
      .join('.')
      .replace(/\.\[\]/g, '[]'),
    depth: n,
  });
  if (segs.length === 0) return { label: '(row)', depth: 0 };
  if (USER_KEYED.has(segs[0])) return at(1);
  if (segs.length >= 2 && USER_KEYED.has(`${segs[0]}.${segs[1]}`)) return at(2);
  if (segs[0] === 'gradingResult' && segs[1] === 'componentResults') return at(Math.min(segs.length, 4));
  return at(Math.min(segs.length, 2));
}

function valueAt(obj: Json, path: (string | number)[]): Json {
  let v = obj;
  for (const p of path) v = v?.[p];
  return v;
}

const sameNumber = (a: number, b: number) =>
  a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** Leaf paths where a and b differ. */
function diffPaths(a: Json, b: Json, path: (string | number)[], out: (string | number)[][]): void {
  if (typeof a === 'number' && typeof b === 'number') {
    if (!sameNumber(a, b)) out.push(path);
    return;
  }
  if (
    a === null ||
    b === null ||
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    Array.isArray(a) !== Array.isArray(b)
  ) {
    if (a !== b) out.push(path);
    return;
  }
  if (Array.isArray(a)) {
    if (a.length !== b.length) {
      out.push(path);
      return;
    }
    for (const [i, x] of a.entries()) diffPaths(x, b[i], [...path, i], out);
    return;
  }
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!(k in a) || !(k in b)) out.push([...path, k]);
    else diffPaths(a[k], b[k], [...path, k], out);
  }
}

export interface FieldDifference {
  /** Rows that differ in this field. */
  rows: number;
  /** The first such row: its key (testIdx/promptIdx) and the two values. */
  example: { row: string; promptfoo: unknown; assay: unknown };
}

/**
 * The fields issue 32 names (a row's verdict and what it shows): a row equal in these but not in
 * every field differs only in bookkeeping (token-usage breakdowns, costs, promptfoo's internal
 * metadata, the raw response).
 */
export const CORE_FIELDS = new Set([
  'description',
  'provider.id',
  'provider.label',
  'prompt.raw',
  'prompt.label',
  'vars',
  'response.output',
  'response.cached',
  'response.finishReason',
  'success',
  'score',
  'namedScores',
  'error',
  'failureReason',
  'gradingResult.pass',
  'gradingResult.score',
  'gradingResult.reason',
  'gradingResult.componentResults',
  'gradingResult.componentResults[].pass',
  'gradingResult.componentResults[].score',
  'gradingResult.componentResults[].reason',
  'gradingResult.componentResults[].assertion',
  'testCase.description',
  'testCase.vars',
  'testCase.assert',
  'row missing in assay',
  'results file',
]);

export interface ConfigComparison {
  id: string;
  /** Rows in promptfoo's results file. */
  rows: number;
  /** Of those, rows assay wrote equal in every compared field. */
  equalRows: number;
  /** Rows equal in the fields of CORE_FIELDS. */
  coreEqualRows: number;
  fields: Record<string, FieldDifference>;
}

const clip = (v: unknown): unknown => {
  const s = JSON.stringify(v);
  if (s === undefined) return v;
  return s.length > 300 ? `${s.slice(0, 300)}…` : v;
};

/** Compares assay's normalised results with promptfoo's, row for row and field by field. */
export function compareResults(
  id: string,
  want: NormalResults,
  got: NormalResults | undefined,
  /** assay's message when it wrote no results file. */
  message = '',
): ConfigComparison {
  const fields: Record<string, FieldDifference> = {};
  const add = (label: string, row: string, promptfoo: unknown, assay: unknown) => {
    if (fields[label]) fields[label].rows++;
    else fields[label] = { rows: 1, example: { row, promptfoo: clip(promptfoo), assay: clip(assay) } };
  };
  if (!got) {
    add('results file', '-', `${want.results.length} rows`, `no results file: ${message}`);
    return { id, rows: want.results.length, equalRows: 0, coreEqualRows: 0, fields };
  }
  for (const part of ['top', 'results'] as const) {
    const a = want.shape[part].join(',');
    const b = got.shape[part].join(',');
    if (a !== b) add(`shape.${part}`, '-', a, b);
  }
  const statPaths: (string | number)[][] = [];
  diffPaths(want.stats, got.stats, [], statPaths);
  for (const p of statPaths) {
    const { label, depth } = fieldOf(p);
    const at = p.slice(0, depth);
    if (!fields[`stats.${label}`])
      add(`stats.${label}`, '-', valueAt(want.stats, at), valueAt(got.stats, at));
  }
  const key = (r: Json) => `${r.testIdx}/${r.promptIdx}`;
  const theirs = new Map(got.results.map((r) => [key(r), r]));
  let equalRows = 0;
  let coreEqualRows = 0;
  for (const w of want.results) {
    const k = key(w);
    const g = theirs.get(k);
    theirs.delete(k);
    if (!g) {
      add('row missing in assay', k, clip(w.testCase?.description ?? w.vars), undefined);
      continue;
    }
    const paths: (string | number)[][] = [];
    diffPaths(w, g, [], paths);
    if (paths.length === 0) {
      equalRows++;
      coreEqualRows++;
      continue;
    }
    if (!paths.some((p) => CORE_FIELDS.has(fieldOf(p).label))) coreEqualRows++;
    const seen = new Set<string>();
    for (const p of paths) {
      const { label, depth } = fieldOf(p);
      if (seen.has(label)) continue;
      seen.add(label);
      add(label, k, valueAt(w, p.slice(0, depth)), valueAt(g, p.slice(0, depth)));
    }
  }
  for (const [k, g] of theirs)
    add('row only in assay', k, undefined, clip(g.testCase?.description ?? g.vars));
  return { id, rows: want.results.length, equalRows, coreEqualRows, fields };
}

// ------------------------------------------------------------------------------------------------
// Running assay on the corpus, the figures, the known differences.
// ------------------------------------------------------------------------------------------------

export interface LoadVerdict {
  loads: boolean;
  exit?: number;
  message?: string;
}

export interface CorpusResult {
  entries: CorpusEntry[];
  /** promptfoo's recorded load verdicts (loads.json) and assay's, by config id. */
  loads: Record<string, { promptfoo: LoadVerdict; assay: LoadVerdict }>;
  comparisons: ConfigComparison[];
}

/** Whether every file the config names is in the corpus (configs that name code files are not counted in the load figure). */
export const countedForLoad = (e: CorpusEntry): boolean => e.notShipped.length === 0;

/** assay's command line for the corpus: `eval FILE … --output-format promptfoo -o OUT`. */
function assayArgs(config: string, extra: string[], scratch: string, out: string): string[] {
  return [
    'eval',
    config,
    ...extra,
    '--no-progress',
    '--no-report',
    '--runs-dir',
    join(scratch, 'runs'),
    '--output-format',
    'promptfoo',
    '-o',
    out,
  ];
}

/**
 * Runs assay on every original (does it load?) and every offline variant (its results file, against
 * the mock), `concurrency` configs at a time (each in a batch process: test/support/assay-batch.ts),
 * and compares each with promptfoo's recorded answers.
 */
export async function runCorpus(opts: {
  mock: MockServer;
  scratch: string;
  concurrency?: number;
  only?: (e: CorpusEntry) => boolean;
}): Promise<CorpusResult> {
  const entries = readCorpus().filter(opts.only ?? (() => true));
  const recordedLoads = JSON.parse(readFileSync(join(CORPUS_DIR, 'loads.json'), 'utf8')) as Record<
    string,
    LoadVerdict
  >;
  const loads: CorpusResult['loads'] = {};
  const comparisons: ConfigComparison[] = [];
  // Provider settings of the caller's environment are not the corpus's: each job unsets them.
  const unset = Object.fromEntries(
    Object.keys(process.env)
      .filter((k) => /^(OPENAI|ANTHROPIC|AZURE|GROQ|GEMINI|GOOGLE|OLLAMA|MISTRAL|OPENROUTER)_/.test(k))
      .map((k) => [k, undefined]),
  );
  const envOf = (mock: MockServer | undefined, n: string): Record<string, string | undefined> => ({
    ...unset,
    ...toolEnv(mock),
    ASSAY_CACHE_PATH: join(opts.scratch, `cache-${n}.sqlite`),
    GITHUB_ACTIONS: undefined,
    GITHUB_STEP_SUMMARY: undefined,
  });
  const n = Math.max(1, Math.min(opts.concurrency ?? 2, entries.length));
  const batches = Array.from({ length: n }, () => startAssayBatch());
  const queue = [...entries];
  try {
    await Promise.all(
      batches.map(async (batch) => {
        for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
          const cwd = configDir(entry);
          const loadOut = join(opts.scratch, `${entry.slug}-load.json`);
          const file = (p: string) => p.split('/').pop() as string;
          const l = await batch.run({
            cwd,
            args: assayArgs(file(entry.config), LOAD_ARGS, opts.scratch, loadOut),
            env: envOf(undefined, `${entry.slug}-load`),
          });
          loads[entry.id] = {
            promptfoo: recordedLoads[entry.id] ?? { loads: false, message: 'not recorded' },
            assay: existsSync(loadOut)
              ? { loads: true }
              : { loads: false, exit: l.code, message: lastLines(scrub(l.out, opts.scratch)) },
          };
          const want = readExpected(entry);
          if (entry.dropped || !entry.offline || !want) continue;
          const out = join(opts.scratch, `${entry.slug}.json`);
          const r = await batch.run({
            cwd,
            args: assayArgs(file(entry.offline), RUN_ARGS, opts.scratch, out),
            env: envOf(opts.mock, entry.slug),
          });
          const got = existsSync(out)
            ? normalise(JSON.parse(readFileSync(out, 'utf8')), { dir: cwd })
            : undefined;
          if ('noResults' in want) {
            // promptfoo wrote no results file for this variant: neither must assay.
            const fields: Record<string, FieldDifference> = {};
            if (got)
              fields['results file'] = {
                rows: 1,
                example: {
                  row: '-',
                  promptfoo: `no results file: ${want.message}`,
                  assay: `${got.results.length} rows`,
                },
              };
            comparisons.push({ id: entry.id, rows: 0, equalRows: 0, coreEqualRows: 0, fields });
          } else
            comparisons.push(compareResults(entry.id, want, got, lastLines(scrub(r.out, opts.scratch), 2)));
        }
      }),
    );
  } finally {
    await Promise.all(batches.map((b) => b.close()));
  }
  comparisons.sort((a, b) => a.id.localeCompare(b.id));
  return { entries, loads, comparisons };
}

/** The checked-in list of differences known today (known-differences.json). */
export interface KnownDifferences {
  about?: string;
  /** Configs whose load verdicts differ: what each tool does, and why. */
  loads: Record<string, { promptfoo: boolean; assay: boolean; reason: string }>;
  /** Per config, per field: how many rows differ, and why. */
  fields: Record<string, Record<string, { rows: number; reason: string }>>;
}

export function readKnown(): KnownDifferences {
  const file = join(CORPUS_DIR, 'known-differences.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { loads: {}, fields: {} };
}

/** The known-differences list for a result, keeping the reasons already written. */
export function knownFrom(result: CorpusResult, previous: KnownDifferences = readKnown()): KnownDifferences {
  const loads: KnownDifferences['loads'] = {};
  for (const [id, l] of Object.entries(result.loads).sort(([a], [b]) => a.localeCompare(b)))
    if (l.promptfoo.loads !== l.assay.loads)
      loads[id] = {
        promptfoo: l.promptfoo.loads,
        assay: l.assay.loads,
        reason:
          previous.loads[id]?.reason ??
          reasonGuess(l.promptfoo.loads ? l.assay.message : l.promptfoo.message),
      };
  const fields: KnownDifferences['fields'] = {};
  for (const c of result.comparisons) {
    const names = Object.keys(c.fields).sort();
    if (names.length === 0) continue;
    fields[c.id] = {};
    for (const f of names)
      fields[c.id][f] = {
        rows: c.fields[f].rows,
        reason: previous.fields[c.id]?.[f]?.reason ?? causeOf(f, c.fields[f]),
      };
  }
  return {
    about:
      'Differences between promptfoo 0.123.1 and assay on the corpus, today. test/formats/promptfoo/corpus-rows.test.ts fails on a difference not listed here and on a listed one that is gone: after a fix, run `node scripts/promptfoo-corpus.js report --write-known` and commit the shorter list.',
    loads,
    fields,
  };
}

const reasonGuess = (message: string | undefined): string =>
  (message ?? '').split('\n').pop()?.slice(0, 200) ?? '';

/** The usual cause of a difference in a field, as found on the corpus (a config's own reason in known-differences.json wins). */
const CAUSES: Record<string, string> = {
  'shape.top': 'layout: assay writes no top-level runtimeOptions or vars',
  'prompt.config':
    'missing field: assay writes no prompt.config (promptfoo: the prompt config, {} when none)',
  'response.tokenUsage':
    'token usage: assay writes no completionDetails or assertions breakdown in response.tokenUsage',
  'tokenUsage.completionDetails': 'token usage: assay writes no completionDetails breakdown',
  'tokenUsage.assertions': "token usage: assay writes no per-row assertions' token usage",
  'stats.tokenUsage.completionDetails': 'token usage: stats.tokenUsage has no completionDetails breakdown',
  'stats.tokenUsage.assertions': "token usage: stats.tokenUsage has no assertions' breakdown",
  'gradingResult.tokensUsed':
    "token usage: the grading result's tokensUsed has no completionDetails breakdown",
  'gradingResult.componentResults[].tokensUsed': 'token usage: component results carry no tokensUsed',
  'gradingResult.componentResults[].metadata':
    "missing field: component results carry no metadata (promptfoo: the rendered grading prompt, the grader's HTTP exchange)",
  metadata: "metadata: promptfoo adds _promptfooFileMetadata to every row's metadata",
  'response.metadata': 'missing field: assay writes no response.metadata',
  'response.raw': "missing field: assay writes no response.raw (the provider's raw answer)",
  'response.isRefusal': 'missing field: assay writes no response.isRefusal',
  'response.guardrails': 'missing field: assay writes no response.guardrails',
  'response.cost': 'cost: assay writes no response.cost',
  cost: "cost: assay prices no call of this model (promptfoo's price table has it)",
  description:
    "layout: assay writes a row-level description; promptfoo 0.123.1's rows keep it in testCase only",
  'response.finishReason':
    "finish reason: assay writes the API's own stop reason (end_turn); promptfoo normalises it (stop)",
  'response.cached': 'cached flag: assay writes cached: false where promptfoo writes none',
  'testCase.options':
    "test case: promptfoo's testCase.options carries defaultTest's options (provider, transform …); assay's is {}",
};

/** A first classification of a field difference, from its field and example (edited by hand where a config has its own cause). */
function causeOf(field: string, d: FieldDifference): string {
  if (CAUSES[field]) return CAUSES[field];
  const { promptfoo, assay } = d.example;
  if (field === 'results file')
    return `refused: ${String(assay)
      .replace(/^no results file: /, '')
      .slice(0, 240)}`;
  if (assay === undefined) return `assay writes no ${field}`;
  if (promptfoo === undefined) return `assay writes ${field}; promptfoo does not`;
  return `differs, e.g. promptfoo ${JSON.stringify(promptfoo)?.slice(0, 80)} vs assay ${JSON.stringify(assay)?.slice(0, 80)}`;
}

/** Compares a result with the known list: differences that are new, changed, or gone. */
export function againstKnown(id: string, c: ConfigComparison | undefined, known: KnownDifferences): string[] {
  const problems: string[] = [];
  const listed = known.fields[id] ?? {};
  const found = c?.fields ?? {};
  for (const [f, d] of Object.entries(found)) {
    const k = listed[f];
    if (!k)
      problems.push(
        `new difference in ${f} (${d.rows} rows), e.g. row ${d.example.row}: promptfoo ${JSON.stringify(d.example.promptfoo)} · assay ${JSON.stringify(d.example.assay)}`,
      );
    else if (k.rows !== d.rows)
      problems.push(`${f}: ${d.rows} rows differ, ${k.rows} listed (update known-differences.json)`);
  }
  for (const [f, k] of Object.entries(listed))
    if (!found[f])
      problems.push(
        `${f}: listed (${k.rows} rows, "${k.reason}") but no row differs now: remove it from known-differences.json`,
      );
  return problems;
}

/** The two figures, and the differences ranked by rows affected. */
export function formatReport(
  result: CorpusResult,
  date: string,
  known: KnownDifferences = readKnown(),
): string {
  const lines: string[] = [];
  const counted = result.entries.filter(countedForLoad);
  const pfLoads = counted.filter((e) => result.loads[e.id]?.promptfoo.loads).length;
  const assayLoads = counted.filter((e) => result.loads[e.id]?.assay.loads).length;
  const rows = result.comparisons.reduce((s, c) => s + c.rows, 0);
  const equal = result.comparisons.reduce((s, c) => s + c.equalRows, 0);
  const core = result.comparisons.reduce((s, c) => s + c.coreEqualRows, 0);
  lines.push(
    `promptfoo corpus, measured ${date}: ${result.entries.length} configs from ${new Set(result.entries.map((e) => e.repo)).size} repositories`,
  );
  lines.push(
    `configs loaded as written: assay ${assayLoads}, promptfoo ${pfLoads}, of ${counted.length} (configs whose every named file is in the corpus; ${result.entries.length - counted.length} name code files that are not redistributed)`,
  );
  lines.push(
    `result rows equal field by field: ${equal} of ${rows} (${result.comparisons.length} offline variants)`,
  );
  lines.push(
    `result rows equal in the fields issue 32 names (verdicts, output, vars, prompt, provider, test case; CORE_FIELDS): ${core} of ${rows}`,
  );
  const both = counted.filter((e) => result.loads[e.id]?.promptfoo.loads && !result.loads[e.id]?.assay.loads);
  if (both.length > 0) {
    lines.push('', `loaded by promptfoo, refused by assay (${both.length}):`);
    for (const e of both)
      lines.push(`  ${e.id}: ${(result.loads[e.id].assay.message ?? '').split('\n').pop()}`);
  }
  const only = counted.filter((e) => !result.loads[e.id]?.promptfoo.loads && result.loads[e.id]?.assay.loads);
  if (only.length > 0) {
    lines.push('', `loaded by assay, refused by promptfoo (${only.length}):`);
    for (const e of only)
      lines.push(`  ${e.id}: ${(result.loads[e.id].promptfoo.message ?? '').split('\n').pop()}`);
  }
  const byField = new Map<
    string,
    { rows: number; configs: string[]; example: { id: string; d: FieldDifference } }
  >();
  for (const c of result.comparisons)
    for (const [f, d] of Object.entries(c.fields)) {
      const agg = byField.get(f) ?? { rows: 0, configs: [], example: { id: c.id, d } };
      agg.rows += d.rows;
      agg.configs.push(c.id);
      if (d.rows > agg.example.d.rows) agg.example = { id: c.id, d };
      byField.set(f, agg);
    }
  lines.push('', 'differences by field, ranked by rows affected:');
  for (const [f, agg] of [...byField].sort((a, b) => b[1].rows - a[1].rows)) {
    const { id, d } = agg.example;
    const reason = known.fields[id]?.[f]?.reason;
    lines.push(`  ${f} — ${agg.rows} rows, ${agg.configs.length} configs${reason ? ` — ${reason}` : ''}`);
    lines.push(
      `      e.g. ${id} row ${d.example.row}: promptfoo ${JSON.stringify(d.example.promptfoo)?.slice(0, 160)} · assay ${JSON.stringify(d.example.assay)?.slice(0, 160)}`,
    );
  }
  return lines.join('\n');
}
