// One LVE's `test.json`, checked as the pydantic `LVE` model (lve/lve.py) checks it, plus the
// checker's required constructor arguments that `get_checker` checks before a run. Every problem
// names the file and the line of the key it is about.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DiagnosticBag } from '../../core/errors.js';
import { jsonProblem } from '../../core/positions.js';
import { type PyValue, pyJsonLoads, pyToJs } from '../../core/python/json-loads.js';
import { checkerSignature } from './checker-signatures.js';
import { checkMessage, type LveMessage } from './messages.js';
import { parsePromptFile } from './prompt-file.js';

/** One prompt of a multi-run LVE: its messages, run `repetitions` times. */
export interface MultiRunEntry {
  name: string;
  messages: LveMessage[];
  repetitions: number;
}

/** A checked LVE definition. */
export interface LveTest {
  /** The LVE folder (absolute). */
  dir: string;
  /** `test.json` as shown in messages. */
  file: string;
  /** Files read to build it (test.json, the prompt file). */
  files: string[];
  description: string;
  model: string;
  checkerName: string;
  /** checker_args without checker_name, values as Python holds them. */
  checkerArgs: Map<string, PyValue>;
  /** The single prompt (inline or from prompt_file). */
  prompt?: LveMessage[];
  multiRun?: MultiRunEntry[];
  promptParameters: string[] | null;
  defaultModelArgs: Record<string, PyValue>;
  author: string | null;
  tags: { name: string; value: string }[];
  /** `checker/checker*.py`, sorted. */
  customCheckerFiles: string[];
  /**
   * The checker is a class of those files (one named like a built-in replaces it, as LVE's
   * registry is keyed by class name and the LVE's files are imported last).
   */
  checkerIsCustom: boolean;
  /** Line of a key in test.json (for per-instance messages). */
  lineOf(key: string): { line: number; col: number } | undefined;
}

const TAG_VALUES: Record<string, string[] | undefined> = {
  severity: ['low', 'medium', 'high'],
  jailbreak: ['yes', 'no'],
  paper: undefined,
};
const FILL_IN = '<please fill in>';
const INJECTED = ['name', 'category', 'path', 'instance_files'];

/** The 1-based line and column of `"key"` (first occurrence) in a JSON text. */
function keyPosition(text: string, key: string): { line: number; col: number } | undefined {
  const at = text.indexOf(JSON.stringify(key));
  if (at < 0) return undefined;
  const before = text.slice(0, at).split('\n');
  return { line: before.length, col: before[before.length - 1].length + 1 };
}

/** Reads and checks `dir/test.json`; problems go to `bag`, undefined when the LVE cannot be used. */
export function readLveTest(dir: string, shownFile: string, bag: DiagnosticBag): LveTest | undefined {
  const path = join(dir, 'test.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    bag.error(shownFile, `cannot read: ${(err as Error).message}`);
    return undefined;
  }
  const problem = jsonProblem(text.replace(/^\ufeff/, ''));
  if (problem) {
    bag.error(shownFile, problem.message, problem);
    return undefined;
  }
  const parsed = pyJsonLoads(text.replace(/^\ufeff/, ''));
  if (!(parsed instanceof Map)) {
    bag.error(shownFile, 'expected a JSON object (an LVE definition)', { line: 1, col: 1 });
    return undefined;
  }
  const at = (key: string) => keyPosition(text, key) ?? { line: 1, col: 1 };
  const errorsBefore = bag.errors.length;
  const err = (key: string, message: string) => bag.error(shownFile, message, at(key));
  const get = (key: string): PyValue | undefined => parsed.get(key);
  const str = (key: string, required: boolean): string | null => {
    const v = get(key);
    if (v === undefined || v === null) {
      if (required) err(key, `missing "${key}": expected a string`);
      return null;
    }
    if (typeof v !== 'string') {
      err(key, `"${key}": expected a string, got ${JSON.stringify(pyToJs(v))}`);
      return null;
    }
    return v;
  };
  for (const k of INJECTED)
    if (parsed.has(k))
      err(k, `"${k}" is set by LVE from the folder (it collides with the loader's own field); remove it`);

  const description = str('description', true);
  const model = str('model', true);
  const author = str('author', false);

  const styles = ['prompt', 'prompt_file', 'multi_run_prompt'].filter((k) => {
    const v = get(k);
    return v !== undefined && v !== null;
  });
  if (styles.length !== 1)
    bag.error(
      shownFile,
      `expected exactly one of "prompt", "prompt_file" or "multi_run_prompt"${styles.length ? `, got ${styles.join(' and ')}` : ''}`,
      styles.length > 1 ? at(styles[1]) : { line: 1, col: 1 },
    );
  const files = [path];
  let prompt: LveMessage[] | undefined;
  let multiRun: MultiRunEntry[] | undefined;
  const messagesFrom = (raw: PyValue, key: string): LveMessage[] | undefined => {
    if (typeof raw === 'string') {
      err(
        key,
        `"${key}": a plain string prompt passes LVE's type check but fails when run; write a list of messages [{"role": "user", "content": ...}]`,
      );
      return undefined;
    }
    if (!Array.isArray(raw)) {
      err(key, `"${key}": expected a list of messages`);
      return undefined;
    }
    const out: LveMessage[] = [];
    for (let i = 0; i < raw.length; i++) {
      const m = checkMessage(pyToJs(raw[i]));
      if (typeof m === 'string') {
        err(key, `"${key}" message ${i + 1}: ${m}`);
        return undefined;
      }
      out.push(m);
    }
    if (out.length === 0) err(key, `"${key}": expected at least one message`);
    return out;
  };
  const fromFile = (name: string, key: string): LveMessage[] | undefined => {
    if (!name.endsWith('.prompt')) {
      err(key, `"${key}": "${name}" must end with .prompt`);
      return undefined;
    }
    const local = join(dir, name);
    const target = existsSync(local) ? local : name;
    if (!existsSync(target) || !statSync(target).isFile()) {
      err(key, `"${key}": the prompt file "${name}" does not exist (looked in ${dir})`);
      return undefined;
    }
    files.push(target);
    // Python opens the file in text mode: universal newlines turn \r\n and \r into \n.
    const result = parsePromptFile(readFileSync(target, 'utf8').replace(/\r\n?/g, '\n'));
    const shownPrompt = `${shownFile.replace(/test\.json$/, '')}${name}`;
    for (const w of result.warnings) bag.warn(shownPrompt, w.message, w.line ? { line: w.line } : undefined);
    if (result.error) {
      bag.error(
        shownPrompt,
        result.error.message,
        result.error.line ? { line: result.error.line } : undefined,
      );
      return undefined;
    }
    return result.messages;
  };
  if (styles.length === 1) {
    const style = styles[0];
    const raw = get(style) as PyValue;
    if (style === 'prompt') prompt = messagesFrom(raw, 'prompt');
    else if (style === 'prompt_file') {
      if (typeof raw !== 'string')
        err('prompt_file', '"prompt_file": expected a file name ending in .prompt');
      else prompt = fromFile(raw, 'prompt_file');
    } else {
      const entries = Array.isArray(raw) ? raw : [raw];
      multiRun = [];
      entries.forEach((e, i) => {
        const where = `"multi_run_prompt" entry ${i + 1}`;
        if (!(e instanceof Map)) {
          err('multi_run_prompt', `${where}: expected an object {name, prompt, repetitions}`);
          return;
        }
        const name = e.get('name');
        if (typeof name !== 'string') {
          err('multi_run_prompt', `${where}: "name" is required (a string)`);
          return;
        }
        const hasPrompt = e.get('prompt') !== undefined && e.get('prompt') !== null;
        const hasFile = e.get('prompt_file') !== undefined && e.get('prompt_file') !== null;
        if (hasPrompt === hasFile) {
          err('multi_run_prompt', `${where}: expected exactly one of "prompt" or "prompt_file"`);
          return;
        }
        // LVE spells the field `repetition` while its docs and data say `repetitions` (and then
        // runs each entry once anyway); assay honours either, as documented.
        const reps = e.get('repetitions') ?? e.get('repetition') ?? null;
        let repetitions = 1;
        if (reps !== null) {
          const n = pyToJs(reps);
          if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
            err('multi_run_prompt', `${where}: "repetitions" must be a whole number ≥ 1`);
            return;
          }
          repetitions = n;
        }
        const pf = e.get('prompt_file');
        const messages = hasPrompt
          ? messagesFrom(e.get('prompt') as PyValue, 'multi_run_prompt')
          : typeof pf === 'string'
            ? fromFile(pf, 'multi_run_prompt')
            : undefined;
        if (messages) multiRun?.push({ name, messages, repetitions });
      });
    }
  }

  const checkerRaw = get('checker_args');
  let checkerName = '';
  const checkerArgs = new Map<string, PyValue>();
  if (!(checkerRaw instanceof Map))
    err('checker_args', 'missing "checker_args": expected an object with "checker_name"');
  else {
    const name = checkerRaw.get('checker_name');
    if (typeof name !== 'string' || name === FILL_IN)
      err(
        'checker_args',
        `"checker_args" needs "checker_name" (a checker class name${name === FILL_IN ? ', not "<please fill in>"' : ''})`,
      );
    else checkerName = name;
    for (const [k, v] of checkerRaw) if (k !== 'checker_name') checkerArgs.set(k, v);
  }
  const customCheckerFiles = customCheckers(dir);
  const checkerIsCustom = checkerName !== '' && definesClass(customCheckerFiles, checkerName);
  if (checkerName && !checkerIsCustom) {
    const sig = checkerSignature(checkerName);
    if (sig) {
      const missing = sig.required.filter((p) => !checkerArgs.has(p));
      if (missing.length > 0)
        err(
          'checker_args',
          `${checkerName} requires ${missing.map((m) => `"${m}"`).join(', ')} in "checker_args"`,
        );
      const unknown = [...checkerArgs.keys()].filter(
        (k) => !sig.required.includes(k) && !sig.optional.includes(k),
      );
      if (unknown.length > 0)
        err(
          'checker_args',
          `${checkerName} takes no argument ${unknown.map((m) => `"${m}"`).join(', ')} (it takes ${[...sig.required, ...sig.optional].join(', ') || 'none'})`,
        );
    } else if (customCheckerFiles.length === 0) {
      // Unknown built-in and no custom checker: each instance will say so (an error result).
    }
  }

  let promptParameters: string[] | null = null;
  const pp = get('prompt_parameters');
  if (pp !== undefined && pp !== null) {
    if (!Array.isArray(pp) || pp.some((p) => typeof p !== 'string'))
      err('prompt_parameters', '"prompt_parameters": expected a list of names or null');
    else if (pp.length === 1 && pp[0] === FILL_IN)
      err('prompt_parameters', '"prompt_parameters" has not been filled in yet ("<please fill in>")');
    else promptParameters = pp as string[];
  }
  const ppv = get('prompt_parameters_validator');
  if (
    ppv !== undefined &&
    ppv !== null &&
    (!Array.isArray(ppv) || ppv.some((v) => v !== 'int' && v !== 'float'))
  )
    err('prompt_parameters_validator', '"prompt_parameters_validator": expected a list of "int" or "float"');

  const defaultModelArgs: Record<string, PyValue> = {};
  const dma = get('default_model_args');
  if (dma !== undefined && dma !== null) {
    if (!(dma instanceof Map)) err('default_model_args', '"default_model_args": expected an object');
    else for (const [k, v] of dma) defaultModelArgs[k] = v;
  }

  const tags: { name: string; value: string }[] = [];
  const rawTags = get('tags');
  if (rawTags !== undefined && rawTags !== null) {
    if (!Array.isArray(rawTags)) err('tags', '"tags": expected a list of {name, value}');
    else
      rawTags.forEach((t, i) => {
        const name = t instanceof Map ? t.get('name') : undefined;
        const value = t instanceof Map ? t.get('value') : undefined;
        if (typeof name !== 'string' || typeof value !== 'string') {
          err('tags', `tag ${i + 1}: expected {"name": string, "value": string}`);
          return;
        }
        if (!(name in TAG_VALUES)) {
          err('tags', `tag ${i + 1}: invalid tag name "${name}" (expected severity, jailbreak or paper)`);
          return;
        }
        const allowed = TAG_VALUES[name];
        if (allowed && !allowed.includes(value)) {
          err('tags', `tag ${i + 1}: invalid ${name} value "${value}" (expected ${allowed.join(', ')})`);
          return;
        }
        tags.push({ name, value });
      });
  }
  if (bag.errors.length > errorsBefore || description === null || model === null) return undefined;
  return {
    dir,
    file: shownFile,
    files,
    description,
    model,
    checkerName,
    checkerArgs,
    prompt,
    multiRun,
    promptParameters,
    defaultModelArgs,
    author,
    tags,
    customCheckerFiles,
    checkerIsCustom,
    lineOf: (key) => keyPosition(text, key),
  };
}

/** The custom checker files LVE imports: `checker/checker*.py`. */
/** Whether one of the files defines a class of this name at its top level. */
function definesClass(files: string[], name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^class[ \\t]+${escaped}[ \\t]*[(:]`, 'm');
  return files.some((f) => {
    try {
      return pattern.test(readFileSync(f, 'utf8'));
    } catch {
      return false;
    }
  });
}

function customCheckers(dir: string): string[] {
  const folder = join(dir, 'checker');
  try {
    return readdirSync(folder)
      .filter((f) => f.startsWith('checker') && f.endsWith('.py'))
      .sort()
      .map((f) => join(folder, f));
  } catch {
    return [];
  }
}
