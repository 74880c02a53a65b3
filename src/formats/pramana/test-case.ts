// A pramana test case, validated as pramana's pydantic models validate it (lax mode): the same
// fields, types, defaults and coercions, so a file pramana accepts loads, and one it rejects is
// refused with every problem named as `field: problem`.
import { type PyDict, PyFloat, PyInt, type PyValue } from '../../core/python/json-loads.js';

export const CATEGORIES = [
  'reasoning',
  'factual',
  'instruction_following',
  'coding',
  'safety',
  'creative',
] as const;
export const ASSERTION_TYPES = [
  'exact_match',
  'contains',
  'contains_any',
  'is_json',
  'llm_judge',
  'semantic_similarity',
] as const;
export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;

export type AssertionType = (typeof ASSERTION_TYPES)[number];

/** A validated test case, defaults filled in. */
export interface PramanaTest {
  id: string;
  category: string;
  /** What reaches the model: the string, or the first chat message's content. */
  inputText: string;
  /** True when `input` was a list of chat messages. */
  chatInput: boolean;
  /** pramana's exception where it cannot build the request (a chat list with no first content). */
  inputError?: string;
  ideal: string | string[] | null;
  assertion: {
    type: AssertionType;
    caseSensitive: boolean;
    threshold: number | null;
    judgePrompt: string | null;
  };
  difficulty: string;
  tokensEst: number;
  tags: string[];
}

/** A problem with one field: `path` is the dotted field name. */
export interface FieldProblem {
  path: string;
  message: string;
}

const TOP_KEYS = new Set(['id', 'category', 'input', 'ideal', 'assertion', 'metadata']);
const ASSERTION_KEYS = new Set(['type', 'case_sensitive', 'threshold', 'judge_prompt']);
const METADATA_KEYS = new Set(['difficulty', 'tokens_est', 'tags']);
const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

function shape(v: PyValue | undefined): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return `${v}`;
  if (typeof v === 'string') return `a string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (v instanceof PyInt) return `the number ${v.value}`;
  if (v instanceof PyFloat) return `the number ${v.value}`;
  return Array.isArray(v) ? 'a list' : 'an object';
}

function isDict(v: PyValue | undefined): v is PyDict {
  return v instanceof Map;
}

function numeric(v: PyValue | undefined): number | undefined {
  if (v instanceof PyInt) return Number(v.value);
  if (v instanceof PyFloat) return v.value;
  return undefined;
}

/** pydantic's lax bool: true/false, 0/1 (int or float), or a word such as "yes"/"off" in any case. */
function laxBool(v: PyValue | undefined): boolean | undefined {
  if (typeof v === 'boolean') return v;
  const n = numeric(v);
  if (n === 0 || n === 1) return n === 1;
  if (typeof v === 'string') {
    const w = v.toLowerCase();
    if (TRUE_WORDS.has(w)) return true;
    if (FALSE_WORDS.has(w)) return false;
  }
  return undefined;
}

/** 2^63: pydantic turns a float into an int only strictly inside ±2^63 (an i64), else int_parsing_size. */
const I64_BOUND = 2 ** 63;

/** Whether a float is whole but outside what pydantic converts to an int. */
function floatTooBig(v: PyValue | undefined): boolean {
  return v instanceof PyFloat && Number.isInteger(v.value) && Math.abs(v.value) >= I64_BOUND;
}

/**
 * pydantic's lax int: an int, a float with no fraction (strictly within ±2^63), a bool, or a
 * decimal string (`"20"`, `" 20 "`, `"1_000"`, `"20.0"`).
 */
function laxInt(v: PyValue | undefined): number | undefined {
  if (v instanceof PyInt) return Number(v.value);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof PyFloat) return Number.isInteger(v.value) && !floatTooBig(v) ? v.value : undefined;
  if (typeof v === 'string') {
    const m = /^[+-]?[0-9](?:_?[0-9])*(?:\.0+)?$/.exec(v.trim());
    return m ? Number(m[0].replace(/_/g, '')) : undefined;
  }
  return undefined;
}

/** pydantic's lax float: a number, a bool, or a numeric string (`"0.5"`, `"1e3"`, `"inf"`, `"nan"`). */
function laxFloat(v: PyValue | undefined): number | undefined {
  const n = numeric(v);
  if (n !== undefined) return n;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const t = v.trim();
    if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/i.test(t)) return Number.NaN;
    const plain = t.replace(/(?<=[0-9])_(?=[0-9])/g, '');
    if (/^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(plain)) return Number(plain);
  }
  return undefined;
}

function oneOf<T extends readonly string[]>(v: PyValue | undefined, allowed: T): T[number] | undefined {
  return typeof v === 'string' && (allowed as readonly string[]).includes(v) ? v : undefined;
}

function isStringList(v: PyValue | undefined): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** Unknown keys pramana ignores (they still count in the suite hash). */
export function unknownKeys(value: PyValue): string[] {
  if (!isDict(value)) return [];
  const out: string[] = [];
  for (const k of value.keys()) if (!TOP_KEYS.has(k)) out.push(k);
  const a = value.get('assertion');
  if (isDict(a)) for (const k of a.keys()) if (!ASSERTION_KEYS.has(k)) out.push(`assertion.${k}`);
  const m = value.get('metadata');
  if (isDict(m)) for (const k of m.keys()) if (!METADATA_KEYS.has(k)) out.push(`metadata.${k}`);
  return out;
}

/** Validates one parsed line; returns the test or every problem found in it. */
export function validateTest(value: PyValue): { test?: PramanaTest; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const bad = (path: string, message: string): undefined => {
    problems.push({ path, message });
    return undefined;
  };
  if (!isDict(value))
    return { problems: [{ path: '(line)', message: `expected a JSON object, got ${shape(value)}` }] };
  const get = (k: string): PyValue | undefined => value.get(k);
  const required = (path: string, v: PyValue | undefined): boolean => {
    if (v !== undefined) return true;
    bad(path, 'required field is missing');
    return false;
  };

  const idValue = get('id');
  const id = required('id', idValue)
    ? typeof idValue === 'string'
      ? idValue
      : bad('id', `expected a string, got ${shape(idValue)}`)
    : undefined;

  const categoryValue = get('category');
  const category = required('category', categoryValue)
    ? (oneOf(categoryValue, CATEGORIES) ??
      bad('category', `expected one of ${CATEGORIES.join(', ')}; got ${shape(categoryValue)}`))
    : undefined;

  const input = get('input');
  let inputText: string | undefined;
  let chatInput = false;
  let inputError: string | undefined;
  if (required('input', input)) {
    if (typeof input === 'string') inputText = input;
    else if (Array.isArray(input)) {
      chatInput = true;
      input.forEach((m, i) => {
        if (!isDict(m)) bad(`input[${i}]`, `expected a message object, got ${shape(m)}`);
        else
          for (const [k, v] of m)
            if (typeof v !== 'string') bad(`input[${i}].${k}`, `expected a string, got ${shape(v)}`);
      });
      const first = input[0];
      // pramana validates a list of any length but sends input[0]["content"]; without one it stops
      // the run there. assay records that test as an error instead (see abortWarning).
      if (input.length === 0) {
        inputText = '';
        inputError = 'IndexError: list index out of range';
      } else if (isDict(first) && !first.has('content')) {
        inputText = '';
        inputError = "KeyError: 'content'";
      } else if (isDict(first) && typeof first.get('content') === 'string')
        inputText = first.get('content') as string;
    } else bad('input', `expected a string or a list of chat messages, got ${shape(input)}`);
  }

  const idealValue = get('ideal');
  let ideal: string | string[] | null = null;
  if (idealValue === undefined || idealValue === null) ideal = null;
  else if (typeof idealValue === 'string' || isStringList(idealValue)) ideal = idealValue;
  else if (Array.isArray(idealValue)) {
    idealValue.forEach((x, i) => {
      if (typeof x !== 'string') bad(`ideal[${i}]`, `expected a string, got ${shape(x)}`);
    });
  } else bad('ideal', `expected a string, a list of strings or null, got ${shape(idealValue)}`);

  const a = get('assertion');
  let assertion: PramanaTest['assertion'] | undefined;
  if (required('assertion', a)) {
    if (!isDict(a)) bad('assertion', `expected an object, got ${shape(a)}`);
    else {
      const t = a.get('type');
      const type =
        t === undefined
          ? bad('assertion.type', 'required field is missing')
          : (oneOf(t, ASSERTION_TYPES) ??
            bad('assertion.type', `expected one of ${ASSERTION_TYPES.join(', ')}; got ${shape(t)}`));
      const cs = a.get('case_sensitive');
      const caseSensitive = cs === undefined ? true : laxBool(cs);
      if (caseSensitive === undefined)
        bad('assertion.case_sensitive', `expected a boolean, got ${shape(cs)}`);
      const th = a.get('threshold');
      const threshold = th === undefined || th === null ? null : laxFloat(th);
      if (threshold === undefined) bad('assertion.threshold', `expected a number or null, got ${shape(th)}`);
      const jp = a.get('judge_prompt');
      const judgePrompt = jp === undefined || jp === null ? null : typeof jp === 'string' ? jp : undefined;
      if (judgePrompt === undefined)
        bad('assertion.judge_prompt', `expected a string or null, got ${shape(jp)}`);
      if (
        type !== undefined &&
        caseSensitive !== undefined &&
        threshold !== undefined &&
        judgePrompt !== undefined
      )
        assertion = { type, caseSensitive, threshold, judgePrompt };
    }
  }

  const m = get('metadata');
  let difficulty: string | undefined;
  let tokensEst: number | undefined;
  let tags: string[] | undefined;
  if (required('metadata', m)) {
    if (!isDict(m)) bad('metadata', `expected an object, got ${shape(m)}`);
    else {
      const d = m.get('difficulty');
      difficulty =
        d === undefined
          ? bad('metadata.difficulty', 'required field is missing')
          : (oneOf(d, DIFFICULTIES) ??
            bad('metadata.difficulty', `expected easy, medium or hard; got ${shape(d)}`));
      const te = m.get('tokens_est');
      tokensEst =
        te === undefined
          ? bad('metadata.tokens_est', 'required field is missing')
          : (laxInt(te) ??
            bad(
              'metadata.tokens_est',
              floatTooBig(te)
                ? `the float ${shape(te).replace('the number ', '')} is beyond the 64-bit range pydantic converts to an int (it reports int_parsing_size: exceeded maximum size)`
                : `expected a whole number, got ${shape(te)}`,
            ));
      const tg = m.get('tags');
      if (tg === undefined) tags = [];
      else if (isStringList(tg)) tags = tg;
      else if (Array.isArray(tg))
        tg.forEach((x, i) => {
          if (typeof x !== 'string') bad(`metadata.tags[${i}]`, `expected a string, got ${shape(x)}`);
        });
      else bad('metadata.tags', `expected a list of strings, got ${shape(tg)}`);
    }
  }

  if (problems.length > 0) return { problems };
  return {
    test: {
      id: id!,
      category: category!,
      inputText: inputText!,
      chatInput,
      ...(inputError ? { inputError } : {}),
      ideal,
      assertion: assertion!,
      difficulty: difficulty!,
      tokensEst: tokensEst!,
      tags: tags!,
    },
    problems,
  };
}
