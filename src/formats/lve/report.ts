// `--output-format lve` / `--record NAME.jsonl`: each result appended as a TestInstance line in
// its LVE's `instances/` folder, exactly as `lve record` writes one (pydantic's model_dump_json:
// keys args, response, passed, author, run_info, prompt_out; compact; UTF-8 as is), so LVE's own
// tools read them. Results that could not be checked (errors) are not instances and are left out.
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pyFloatRepr } from '../../core/python/json-dumps.js';
import { PyFloat, PyInt, type PyValue, pyJsonLoads } from '../../core/python/json-loads.js';
import type { JobResult, Message } from '../../core/types.js';
import { registerOutputFormat } from '../../report/outputs.js';
import { ensureDir } from '../../runlog/dirs.js';
import { readManifest, resultLinesInPlanOrder } from '../../runlog/reader.js';
import { writeFileWhole } from '../../runlog/write-whole.js';
import { assayVersion } from '../../version.js';
import type { LveNative } from './load.js';

/** A value as pydantic-core writes JSON: compact, non-ASCII as is, floats with a short exponent. */
export function pydanticJson(v: PyValue): string {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof PyInt) return v.value.toString();
  if (v instanceof PyFloat) {
    if (!Number.isFinite(v.value)) return 'null';
    return pyFloatRepr(v.value).replace(/e([+-])0(\d)$/, 'e$1$2');
  }
  if (Array.isArray(v)) return `[${v.map(pydanticJson).join(',')}]`;
  return `{${[...v].map(([k, x]) => `${JSON.stringify(k)}:${pydanticJson(x)}`).join(',')}}`;
}

/** `time.ctime()` of an ISO time, in local time: `Thu Nov  2 22:25:28 2023`. */
export function ctime(iso: string): string {
  const d = new Date(iso);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][
    d.getMonth()
  ];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${day} ${month} ${String(d.getDate()).padStart(2, ' ')} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${d.getFullYear()}`;
}

/** LVE's extract_variables_from_prompt over a filled conversation: every assistant message, unnamed ones by count. */
function variablesOf(messages: Message[]): Map<string, PyValue> {
  const out = new Map<string, PyValue>();
  for (const m of messages)
    if (m.role === 'assistant')
      out.set(m.variable ?? String(out.size), typeof m.content === 'string' ? m.content : '');
  return out;
}

/** The response LVE records: the answer, the variables when several are named, one per run for multi-run. */
function responseOf(result: JobResult): PyValue | undefined {
  if (result.output === null) return undefined;
  // A multi_run_prompt's response is a list of one per run, even of a single run (runs from
  // before the case said so: more than one run).
  const flag = result.metadata?.multi_run;
  const multi = typeof flag === 'boolean' ? flag : (result.runs?.length ?? 0) > 1;
  // LVE counts every named assistant message of the conversation (literal ones too, as
  // invoke_check does): more than one, and the response is the dict of variables.
  const namedCount = (messages: Message[]): number =>
    messages.filter((m) => m.role === 'assistant' && m.variable).length;
  if (!result.runs || result.runs.length === 0) {
    if (multi) return [result.output];
    // A plain prompt's answer fills its one hole: LVE's appended `response` unless the case says otherwise.
    const v = result.metadata?.answer_variable;
    const variable = typeof v === 'string' ? v : v === null ? undefined : 'response';
    const messages: Message[] = [
      ...result.prompt.messages,
      { role: 'assistant', content: result.output, ...(variable ? { variable } : {}) },
    ];
    return namedCount(messages) > 1 ? variablesOf(messages) : result.output;
  }
  const filled = (completions: string[], outputs: Record<string, string> | undefined): PyValue => {
    const named = Object.keys(outputs ?? {});
    // Named literal assistant messages count too (a filled hole's name is in both: a set).
    const names = new Set(named);
    if (!multi)
      for (const m of result.prompt.messages) if (m.role === 'assistant' && m.variable) names.add(m.variable);
    if (names.size <= 1) return completions[completions.length - 1] ?? '';
    if (multi) return new Map(Object.entries(outputs ?? {}));
    // The conversation up to the last hole, then that hole: its variable is the one not yet seen.
    const messages: Message[] = [...result.prompt.messages];
    const seen = new Set(messages.map((m) => m.variable).filter(Boolean));
    const last = named.find((k) => !seen.has(k));
    messages.push({
      role: 'assistant',
      content: completions[completions.length - 1] ?? '',
      ...(last ? { variable: last } : {}),
    });
    return variablesOf(messages);
  };
  if (!multi) return filled(result.runs[0].completions, result.runs[0].outputs);
  return result.runs.map((r) => filled(r.completions, r.outputs));
}

/** One TestInstance line, or undefined when the result is not one (an error, no verdict). */
export function testInstanceLine(result: JobResult, version: string): string | undefined {
  if (result.status !== 'pass' && result.status !== 'fail') return undefined;
  const details = result.verdicts[0]?.details;
  const passed = details?.passed;
  if (typeof passed !== 'boolean') return undefined;
  const response = responseOf(result);
  if (response === undefined) return undefined;
  const argsText = result.metadata?.args;
  const args = typeof argsText === 'string' ? pyJsonLoads(argsText) : new Map();
  const runInfo = new Map<string, PyValue>([
    ['timestamp', ctime(result.startedAt)],
    ['assay', version],
    ['provider', result.providerId],
  ]);
  return `{"args":${pydanticJson(args)},"response":${pydanticJson(response)},"passed":${passed},"author":null,"run_info":${pydanticJson(runInfo)},"prompt_out":null}\n`;
}

/**
 * The run's record of the TestInstance lines it appended: by file, the file's size before the
 * run's first append (`from`) and the job keys appended. (Runs made before `from` was kept list
 * the keys alone.)
 */
const LEDGER = 'lve-recorded.json';

interface LedgerEntry {
  from?: number;
  keys: Set<string>;
}

function readLedger(runDir: string): Map<string, LedgerEntry> {
  const path = join(runDir, LEDGER);
  if (!existsSync(path)) return new Map();
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<
    string,
    string[] | { from: number; keys: string[] }
  >;
  return new Map(
    Object.entries(raw).map(([file, entry]) => [
      file,
      Array.isArray(entry) ? { keys: new Set(entry) } : { from: entry.from, keys: new Set(entry.keys) },
    ]),
  );
}

function writeLedger(runDir: string, ledger: Map<string, LedgerEntry>): void {
  const path = join(runDir, LEDGER);
  const body = Object.fromEntries(
    [...ledger].map(([file, e]) => [
      file,
      e.from === undefined ? [...e.keys] : { from: e.from, keys: [...e.keys] },
    ]),
  );
  writeFileWhole(path, `${JSON.stringify(body)}\n`);
}

registerOutputFormat({
  name: 'lve',
  extensions: [],
  treeOnly: true,
  description:
    "LVE's instances: a TestInstance line per result in each LVE's instances/ (as lve record writes)",
  check(run) {
    const native = run.native as LveNative | undefined;
    if (native?.kind !== 'lve')
      return `the run is not of an LVE repository (format ${run.format}); --output-format lve needs one`;
    if (native.replay) return '--replay checks recorded instances again; there is nothing new to record';
    return undefined;
  },
  async write() {
    throw new Error('LVE instances are a folder of files: give -o DIR/ or --record NAME.jsonl');
  },
  ownAppends(runDir) {
    const appends: Record<string, number> = {};
    for (const [file, entry] of readLedger(runDir)) if (entry.from !== undefined) appends[file] = entry.from;
    return appends;
  },
  async writeTree(runDir, target) {
    const manifest = readManifest(runDir);
    const native = manifest.suite.native as LveNative | undefined;
    if (native?.kind !== 'lve') throw new Error('the run is not of an LVE repository');
    const byShort = new Map(native.lves.map((l) => [l.path.replace(/^repository\//, ''), l]));
    const version = assayVersion();
    // What earlier writes of this run appended (a resumed run writes its tree again): by file, the
    // job keys already there, so every result is appended once.
    const ledger = readLedger(runDir);
    const lines = new Map<string, { keys: string[]; text: string[] }>();
    for await (const text of resultLinesInPlanOrder(runDir)) {
      const result = JSON.parse(text) as JobResult;
      const lve = byShort.get(String(result.metadata?.lve ?? ''));
      const line = lve ? testInstanceLine(result, version) : undefined;
      if (!lve || !line) continue;
      const file = resolve(
        target.dir !== undefined ? join(target.dir, lve.path) : lve.dir,
        'instances',
        target.fileName,
      );
      if (ledger.get(file)?.keys.has(result.key)) continue;
      const entry = lines.get(file) ?? { keys: [], text: [] };
      entry.keys.push(result.key);
      entry.text.push(line);
      lines.set(file, entry);
    }
    for (const [file, chunk] of lines) {
      ensureDir(join(file, '..'));
      const before = existsSync(file) ? statSync(file).size : 0;
      // Appended, as lve record does; a file without a final newline gets one first.
      const needsNewline =
        existsSync(file) && !readFileSync(file, 'utf8').endsWith('\n') && readFileSync(file).length > 0;
      appendFileSync(file, (needsNewline ? '\n' : '') + chunk.text.join(''));
      const done = ledger.get(file) ?? { from: before, keys: new Set<string>() };
      for (const k of chunk.keys) done.keys.add(k);
      ledger.set(file, done);
      writeLedger(runDir, ledger);
    }
    return [...lines.keys()];
  },
});
