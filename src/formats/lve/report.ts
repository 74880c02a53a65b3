// `--output-format lve` / `--record NAME.jsonl`: each result appended as a TestInstance line in
// its LVE's `instances/` folder, exactly as `lve record` writes one (pydantic's model_dump_json:
// keys args, response, passed, author, run_info, prompt_out; compact; UTF-8 as is), so LVE's own
// tools read them. Results that could not be checked (errors) are not instances and are left out.
import { join, resolve } from 'node:path';
import { pyFloatRepr } from '../../core/python/json-dumps.js';
import { PyFloat, PyInt, type PyValue, pyJsonLoads } from '../../core/python/json-loads.js';
import type { JobResult, Message } from '../../core/types.js';
import { registerOutputFormat } from '../../report/outputs.js';
import { assayVersion } from '../../version.js';
import { type LveNative, lveNative } from './native.js';

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
  const flag = result.case.metadata?.multi_run;
  const multi = typeof flag === 'boolean' ? flag : (result.answer.runs?.length ?? 0) > 1;
  // LVE counts every named assistant message of the conversation (literal ones too, as
  // invoke_check does): more than one, and the response is the dict of variables.
  const namedCount = (messages: Message[]): number =>
    messages.filter((m) => m.role === 'assistant' && m.variable).length;
  if (!result.answer.runs || result.answer.runs.length === 0) {
    if (multi) return [result.output];
    // A plain prompt's answer fills its one hole: LVE's appended `response` unless the case says otherwise.
    const v = result.case.metadata?.answer_variable;
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
  if (!multi) return filled(result.answer.runs[0].completions, result.answer.runs[0].outputs);
  return result.answer.runs.map((r) => filled(r.completions, r.outputs));
}

/** One TestInstance line, or undefined when the result is not one (an error, no verdict). */
export function testInstanceLine(result: JobResult, version: string): string | undefined {
  if (result.status !== 'pass' && result.status !== 'fail') return undefined;
  const details = result.verdicts[0]?.details;
  const passed = details?.passed;
  if (typeof passed !== 'boolean') return undefined;
  const response = responseOf(result);
  if (response === undefined) return undefined;
  const argsText = result.case.metadata?.args;
  const args = typeof argsText === 'string' ? pyJsonLoads(argsText) : new Map();
  const runInfo = new Map<string, PyValue>([
    ['timestamp', ctime(result.startedAt)],
    ['assay', version],
    ['provider', result.providerId],
  ]);
  return `{"args":${pydanticJson(args)},"response":${pydanticJson(response)},"passed":${passed},"author":null,"run_info":${pydanticJson(runInfo)},"prompt_out":null}\n`;
}

registerOutputFormat({
  name: 'lve',
  layout: 'tree',
  extensions: [],
  description:
    "LVE's instances: a TestInstance line per result in each LVE's instances/ (as lve record writes)",
  check(run) {
    const native = lveNative.maybe(run.native);
    if (!native)
      return `the run is not of an LVE repository (format ${run.format}); --output-format lve needs one`;
    if (native.replay) return '--replay checks recorded instances again; there is nothing new to record';
    return undefined;
  },
  async write(run, tree) {
    const native = run.manifest.suite.native as LveNative | undefined;
    if (native?.kind !== 'lve') throw new Error('the run is not of an LVE repository');
    const byShort = new Map(native.lves.map((l) => [l.path.replace(/^repository\//, ''), l]));
    const version = assayVersion();
    for await (const result of run.results()) {
      const lve = byShort.get(String(result.case.metadata?.lve ?? ''));
      const line = lve ? testInstanceLine(result, version) : undefined;
      if (!lve || !line) continue;
      // Under the tree's root by the LVE's path, or in the LVE's own folder (--record).
      const folder = tree.root !== undefined ? join(tree.root, lve.path) : lve.dir;
      tree.append(resolve(folder, 'instances', tree.fileName), line, result.key);
    }
  },
});
