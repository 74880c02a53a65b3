// What every model-graded scorer shares: choosing the grading prompt (the default or the user's
// `rubricPrompt`), rendering it the way promptfoo does, sending it, and reading JSON out of replies.
import { isRecord } from '../../core/records.js';
import type { Message, Role } from '../../core/types.js';
import { renderString } from '../../template/render.js';
import { type Grader, GraderError, type ScoreInput, ScorerInputError } from '../types.js';

/**
 * The grading prompt template: the user's `rubricPrompt` when set (objects and arrays are
 * JSON-serialised, as promptfoo does), else the default.
 */
export function rubricPromptText(custom: unknown, fallback: string): string {
  if (custom === undefined || custom === null || custom === '') return fallback;
  if (typeof custom === 'string') return custom;
  if (typeof custom === 'object' && Object.keys(custom).length === 0) return fallback;
  return JSON.stringify(custom);
}

/**
 * Object vars become JSON text before rendering (arrays keep their items, objects inside them are
 * stringified), so `{{ output }}` shows a structured output as JSON, as promptfoo's graders see it.
 */
function stringifyObjects(vars: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(vars)) {
    if (Array.isArray(value))
      out[key] = value.map((item) => (item && typeof item === 'object' ? JSON.stringify(item) : item));
    else if (value && typeof value === 'object') out[key] = JSON.stringify(value);
    else out[key] = value;
  }
  return out;
}

/**
 * Renders a grading prompt: when the template is JSON, each string in it is rendered separately
 * (so values are JSON-escaped) and the result re-serialised; otherwise the text is rendered whole.
 */
export function renderGradingPrompt(template: string, vars: Record<string, unknown>): string {
  const context = stringifyObjects(vars);
  try {
    const parsed: unknown = JSON.parse(template, (_key, value: unknown) =>
      typeof value === 'string' ? renderString(value, context) : value,
    );
    return JSON.stringify(parsed);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
  return renderString(template, context);
}

const ROLES = new Set<Role>(['system', 'user', 'assistant', 'tool']);

/** A rendered prompt as chat messages: a JSON array of `{role, content}`, else one user message. */
export function gradingMessages(rendered: string): Message[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rendered);
  } catch {
    return [{ role: 'user', content: rendered }];
  }
  if (
    Array.isArray(parsed) &&
    parsed.length > 0 &&
    parsed.every((m) => isRecord(m) && typeof m.role === 'string' && ROLES.has(m.role as Role))
  ) {
    return parsed.map((m: Record<string, unknown>) => ({
      role: m.role as Role,
      content: typeof m.content === 'string' || m.content === null ? m.content : JSON.stringify(m.content),
    })) as Message[];
  }
  return [{ role: 'user', content: rendered }];
}

/** Renders a grading prompt, asks the grader, and returns its reply text. */
export async function askGrader(
  grader: Grader,
  template: string,
  vars: Record<string, unknown>,
): Promise<{ reply: string; prompt: string }> {
  const prompt = renderGradingPrompt(template, vars);
  const answer = await grader.complete(gradingMessages(prompt));
  return { reply: answer.output, prompt };
}

/** The scorer needs a grader; the engine refuses graded assertions without one, so this is a safeguard. */
export function requireGrader(input: ScoreInput, type: string): Grader {
  if (!input.grader) throw new ScorerInputError(`${type} needs a grader model and none is configured`);
  return input.grader;
}

/** The output as graders see it: parsed when it is JSON text, as is otherwise. */
export function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Every JSON-like object in a grader's reply, read leniently exactly as promptfoo reads verdicts
 * (single quotes, unquoted keys, comments, trailing commas, truncated objects; see json-extract).
 */
export { extractJsonObjects } from '../structured/json-extract.js';

/**
 * A grader reply that cannot be read: the job is an error quoting what the grader said. The
 * engine puts the assertion's type in front, once.
 */
export function unreadable(grader: Grader, what: string, reply: string): GraderError {
  const shown = reply.length > 2000 ? `${reply.slice(0, 2000)}…` : reply;
  return new GraderError(`grader ${grader.id} ${what}; it replied: ${JSON.stringify(shown)}`);
}

/** The assertion's threshold, or `fallback` when it has none. */
export function thresholdOf(input: ScoreInput, fallback: number): number {
  const t = input.spec.threshold;
  return typeof t === 'number' && Number.isFinite(t) ? t : fallback;
}

/** Clamps to [0, 1]; NaN becomes 0. */
export function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/** The `rubricPrompt` option of an assertion (the assertion's own, else its test's). */
export function rubricPromptOption(input: ScoreInput): unknown {
  return input.spec.options?.rubricPrompt;
}

export { isRecord };
