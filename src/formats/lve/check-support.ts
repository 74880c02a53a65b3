// What LVE's checkers share: the context a checker is given, the answer it reads, Python truth and
// equality of its arguments, and regexes compiled as Python's `re` compiles them.

import { type PyValue, pyToJs } from '../../core/python/json-loads.js';
import { compilePyRegex, PyRegexError, type PyRegexFlags, PyRegexUnsupported } from '../../core/python/re.js';
import { pyStr } from '../../core/python/str.js';
import { ScorerInputError } from '../../scorers/types.js';

/** A message as an LVE checker sees it. */
export interface CheckMessage {
  role: string;
  content: string;
  variable: string | null;
}

/** What a checker is given: LVE's `prompt_out` (or one per run), its args and the prompt values. */
export interface CheckContext {
  name: string;
  args: Map<string, PyValue>;
  params: Map<string, PyValue>;
  promptOut: CheckMessage[];
  runs: CheckMessage[][];
  /** The LVE uses multi_run_prompt: its checker is given `runs`, one per run, even a single one. */
  multi: boolean;
  /** Raw Python JSON of args and params, for checks that run in Python. */
  argsJson: string;
  paramsJson: string;
  /** Custom checker files (absolute paths), when the LVE has them. */
  files: string[];
}

/** LVE's `extract_response_from_prompt` (full): the last message, which must be the model's. */
export function response(ctx: CheckContext): string {
  const last = ctx.promptOut[ctx.promptOut.length - 1];
  if (last?.role !== 'assistant')
    throw new ScorerInputError('the last message is not an assistant answer (LVE asserts it is)');
  return last.content;
}

/** Python's `a == b` for a checker flag compared with a bool (`matches == self.match_safe`). */
export function pyEqualsBool(flag: boolean, v: PyValue | undefined): boolean {
  if (typeof v === 'boolean') return v === flag;
  const n = pyToJs(v ?? null);
  return typeof n === 'number' && n === (flag ? 1 : 0);
}

/** Python truthiness of a checker argument (`x if self.match_safe else not x`). */
export function truthy(v: PyValue | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  const n = pyToJs(v);
  return typeof n === 'number' ? n !== 0 : true;
}

export function stringArg(ctx: CheckContext, key: string): string {
  const v = ctx.args.get(key);
  if (typeof v !== 'string') throw new ScorerInputError(`"${key}" must be a string, got ${pyStr(v ?? null)}`);
  return v;
}

/** A Python `re` pattern compiled with its flags; Python's re.error and what assay cannot run are errors. */
export function compile(pattern: string, flags: PyRegexFlags = {}): RegExp {
  try {
    return compilePyRegex(pattern, flags);
  } catch (err) {
    if (err instanceof PyRegexError)
      throw new ScorerInputError(`re.error: ${err.message} in ${JSON.stringify(pattern)}`);
    if (err instanceof PyRegexUnsupported)
      throw new ScorerInputError(
        `${JSON.stringify(pattern)} uses ${err.message}, which assay cannot run as Python does`,
      );
    throw err;
  }
}
