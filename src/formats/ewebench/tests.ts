// Checking one ÈwéBench test object: errors for what the tool would crash on or misread, and
// warnings for what it silently mishandles (each naming the file, line and test id).
import type { DiagnosticBag } from '../../core/errors.js';
import { isRecord } from '../../core/records.js';
import type { Message, Role } from '../../core/types.js';
import { MARKDOWN_ELEMENTS } from '../../scorers/text/markdown.js';
import { EVAL_METHODS, type EweTest, FORMAT_KEYS, type Mode } from './assertions.js';

/** A test after checking: what the loader needs to build a case. */
export interface CheckedTest extends EweTest {
  id: string;
  /** The id as the file gives it (a number stays a number, as the tool writes it back). */
  idValue: string | number;
  description?: string;
  /** `messages` verbatim, or undefined when the test has a `prompt`. */
  messages?: Message[];
  prompt?: string;
  system?: string;
  temperature?: number;
}

const ROLES: Role[] = ['system', 'user', 'assistant', 'tool'];

function shape(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * Checks test `index` of a category file. Returns the checked test, or undefined when it has an
 * error (reported to `bag`). `where` positions the diagnostics.
 */
export function checkTest(
  raw: unknown,
  index: number,
  category: string,
  mode: Mode,
  bag: DiagnosticBag,
  where: { file: string; line?: number; col?: number },
): CheckedTest | undefined {
  const pos = { line: where.line, col: where.col };
  if (!isRecord(raw)) {
    bag.error(where.file, `test ${index + 1}: expected an object, got ${shape(raw)}`, pos);
    return undefined;
  }
  const idValue = raw.id;
  const id =
    typeof idValue === 'string' || typeof idValue === 'number' ? String(idValue) : `${category}_${index}`;
  const label = `test "${id}"`;
  const errorsBefore = bag.errors.length;
  const error = (message: string): void => bag.error(where.file, `${label}: ${message}`, pos);
  const warn = (message: string): void => bag.warn(where.file, `${label}: ${message}`, pos);
  if (idValue !== undefined && typeof idValue !== 'string' && typeof idValue !== 'number')
    error(`"id" must be a string, got ${shape(idValue)}`);

  const test: CheckedTest = { id, idValue: typeof idValue === 'number' ? idValue : id };
  if (typeof raw.description === 'string') test.description = raw.description;
  if ('messages' in raw) {
    test.messages = checkMessages(raw.messages, error);
    if ('system' in raw)
      warn('"system" is ignored when "messages" is given (the messages are sent as they are)');
  } else if (typeof raw.prompt === 'string') {
    test.prompt = raw.prompt;
    if ('system' in raw) {
      if (typeof raw.system === 'string') test.system = raw.system;
      else error(`"system" must be a string, got ${shape(raw.system)}`);
    }
  } else if ('prompt' in raw) error(`"prompt" must be a string, got ${shape(raw.prompt)}`);
  else error('has neither "prompt" nor "messages"');

  if ('temperature' in raw) {
    if (typeof raw.temperature === 'number' && Number.isFinite(raw.temperature))
      test.temperature = raw.temperature;
    else error(`"temperature" must be a number, got ${shape(raw.temperature)}`);
  }
  if ('eval_method' in raw) {
    if (typeof raw.eval_method !== 'string')
      error(`"eval_method" must be a string, got ${shape(raw.eval_method)}`);
    else {
      test.eval_method = raw.eval_method;
      if (!EVAL_METHODS.includes(raw.eval_method))
        warn(
          `unknown eval_method "${raw.eval_method}": scored as ewe_quality, as the ÈwéBench tool does (known: ${EVAL_METHODS.join(', ')})`,
        );
    }
  }
  const method = test.eval_method ?? 'keywords';
  if ('expected' in raw) {
    if (typeof raw.expected === 'string') test.expected = raw.expected;
    else error(`"expected" must be a string, got ${shape(raw.expected)}`);
  } else if (method === 'exact_match' || method === 'multiple_choice') {
    warn(
      `${method} test has no "expected": the ÈwéBench tool crashes on it (KeyError: 'expected'); assay records it as an error${mode === 'compat' ? ', left out of the category score' : ' counted as 0 in the category score'}`,
    );
  }
  if ('expected_keywords' in raw) {
    const kws = raw.expected_keywords;
    if (Array.isArray(kws) && kws.every((k) => typeof k === 'string')) test.expected_keywords = kws;
    else error(`"expected_keywords" must be a list of strings, got ${shape(kws)}`);
  }
  const noKeywords =
    !('expected_keywords' in raw) ||
    (Array.isArray(raw.expected_keywords) && raw.expected_keywords.length === 0);
  if ((method === 'keywords' || method === 'composite') && noKeywords)
    warn(
      `${method} test has no expected_keywords: its keyword part always scores 0 (as in the ÈwéBench tool)`,
    );
  if ('expected_format' in raw) {
    if (isRecord(raw.expected_format)) {
      test.expected_format = raw.expected_format;
      checkFormat(raw.expected_format, mode, error, warn);
    } else error(`"expected_format" must be an object, got ${shape(raw.expected_format)}`);
  }
  if (method === 'format' || method === 'composite') {
    const format = raw.expected_format;
    const part = method === 'format' ? 'it always scores 0' : 'its format part always scores 0';
    if (format === undefined)
      warn(`${method} test has no expected_format: ${part} (as in the ÈwéBench tool)`);
    else if (isRecord(format) && !FORMAT_KEYS.some((k) => k in format))
      warn(
        `${method} test's expected_format has none of the keys the scorer checks (${FORMAT_KEYS.join(', ')}): ${part} (as in the ÈwéBench tool)`,
      );
  }
  return bag.errors.length > errorsBefore ? undefined : test;
}

function checkMessages(value: unknown, error: (m: string) => void): Message[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    error(`"messages" must be a non-empty list of {role, content}, got ${shape(value)}`);
    return undefined;
  }
  const out: Message[] = [];
  value.forEach((m, i) => {
    if (!isRecord(m) || typeof m.role !== 'string' || typeof m.content !== 'string') {
      error(`messages[${i}] must be {role, content} with string values`);
      return;
    }
    if (!ROLES.includes(m.role as Role)) {
      error(`messages[${i}].role "${m.role}" is not one of ${ROLES.join(', ')}`);
      return;
    }
    out.push({ role: m.role as Role, content: m.content });
  });
  return out;
}

function checkFormat(
  format: Record<string, unknown>,
  mode: Mode,
  error: (m: string) => void,
  warn: (m: string) => void,
): void {
  for (const key of Object.keys(format)) {
    if (!FORMAT_KEYS.includes(key))
      warn(
        `expected_format key "${key}" is ignored by the ÈwéBench scorer (it checks only ${FORMAT_KEYS.join(', ')})`,
      );
  }
  for (const key of ['min_length', 'max_length']) {
    const v = format[key];
    // Python compares a bool as the number it is (True is 1), so the tool accepts one.
    if (key in format && typeof v !== 'boolean' && (typeof v !== 'number' || !Number.isFinite(v)))
      error(`expected_format.${key} must be a number, got ${shape(v)}`);
  }
  if ('markdown_elements' in format) {
    const md = format.markdown_elements;
    if (!Array.isArray(md) || !md.every((e) => typeof e === 'string'))
      error(`expected_format.markdown_elements must be a list of names, got ${shape(md)}`);
    else {
      for (const e of md)
        if (!MARKDOWN_ELEMENTS.includes(e))
          warn(
            `expected_format.markdown_elements "${e}" is not one the scorer recognises (${MARKDOWN_ELEMENTS.join(', ')}): it can never be found`,
          );
      if (md.length === 0) warn('expected_format.markdown_elements is empty: that check always scores 0');
    }
  }
  for (const key of ['contains_function_call', 'contains_ewe']) {
    if (format[key] !== false) continue;
    warn(
      mode === 'compat'
        ? `expected_format.${key} is false, but the ÈwéBench scorer ignores the value and scores it like true (compat mode keeps this; --mode fixed honours false)`
        : `expected_format.${key} is false: fixed mode requires its absence (the ÈwéBench tool would require its presence)`,
    );
  }
}
