import type { AssertionSpec } from '../../core/types.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { describeShape, truncate, writtenType } from '../util.js';

/**
 * Provider-specific stop reasons folded onto OpenAI's names, as newer promptfoo does, so `stop`
 * matches Anthropic's `end_turn` and `length` matches `max_tokens`.
 */
const SYNONYMS: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  function_call: 'tool_calls',
};

/** Case-insensitive, synonym-folded form of a finish reason. */
export function normalizeFinishReason(reason: string): string {
  const lower = reason.trim().toLowerCase();
  return SYNONYMS[lower] ?? lower;
}

/** The expected reasons: a non-empty string or a non-empty list of them; throws ScorerInputError. */
function expectedReasons(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) throw new ScorerInputError('"finish-reason" assertion has an empty list of reasons');
  for (const item of list) {
    if (typeof item !== 'string' || item.trim() === '') {
      throw new ScorerInputError(
        `"finish-reason" assertion type must have a string (or list of strings) value, got ${item === '' ? 'an empty string' : describeShape(item)}`,
      );
    }
  }
  return list as string[];
}

function scoreFinishReason(input: ScoreInput): ScoreResult {
  const negate = input.spec.negate === true;
  const expected = expectedReasons(input.value);
  const shown = truncate(expected.join('", "'));
  const actual = input.response.finishReason;
  if (actual === undefined || actual === '') {
    // Newer promptfoo: no reason at all is "not the expected reason", so `not-finish-reason` passes.
    return negate
      ? { pass: true, score: 1, reason: 'Assertion passed' }
      : { pass: false, score: 0, reason: 'Provider did not supply stop/finish reason' };
  }
  const wanted = new Set(expected.map(normalizeFinishReason));
  const pass = wanted.has(normalizeFinishReason(actual)) !== negate;
  return {
    pass,
    score: pass ? 1 : 0,
    reason: pass
      ? 'Assertion passed'
      : `Expected finish reason ${negate ? 'not ' : ''}"${shown}" but got "${truncate(actual)}"`,
  };
}

/** `finish-reason`: the provider's stop reason equals the value (case-insensitive; a list means any). */
export const finishReasonScorer: Scorer = {
  type: 'finish-reason',
  description:
    "The provider's finish reason is the value (case-insensitive; stop/length/tool_calls synonyms)",
  validate(spec: AssertionSpec) {
    if (spec.value === undefined) return `${writtenType('finish-reason', spec)} needs a value, got no value`;
    try {
      expectedReasons(spec.value);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    return undefined;
  },
  score: scoreFinishReason,
};
