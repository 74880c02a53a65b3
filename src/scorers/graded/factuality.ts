// `factuality` (alias `model-graded-factuality`): the grader compares the output with a reference
// answer and picks a category (A)–(E); each category's score comes from `options.factuality`.
// Like promptfoo, the handler ignores `not-`.
import { type ScoreInput, type ScoreResult, type Scorer, ScorerInputError } from '../types.js';
import { FACTUALITY_CATEGORIES, FACTUALITY_PROMPT } from './prompts.js';
import {
  askGrader,
  extractJsonObjects,
  isRecord,
  requireGrader,
  rubricPromptOption,
  rubricPromptText,
  tryParse,
  unreadable,
} from './rubric.js';

/** promptfoo's `options.factuality` keys per category, with their default scores. */
const CATEGORY_OPTIONS: Record<string, [string, number]> = {
  A: ['subset', 1],
  B: ['superset', 1],
  C: ['agree', 1],
  D: ['disagree', 0],
  E: ['differButFactual', 1],
};

function categoryScores(options: unknown): Record<string, number> {
  const given = isRecord(options) ? options : {};
  const scores: Record<string, number> = {};
  for (const [letter, [key, fallback]] of Object.entries(CATEGORY_OPTIONS)) {
    const v = given[key];
    scores[letter] = typeof v === 'number' && Number.isFinite(v) ? v : fallback;
  }
  return scores;
}

/** The category and reason in a reply: the JSON form first, then the legacy `(A) reason` form. */
function readCategory(reply: string): { letter: string; reason: string } | 'invalid' | undefined {
  const json = extractJsonObjects(reply)[0];
  if (json && typeof json.category === 'string' && json.category !== '') {
    const letter = json.category.trim().toUpperCase();
    if (!/^[A-E]$/.test(letter)) return 'invalid';
    const reason = typeof json.reason === 'string' ? json.reason.trim() : '';
    return { letter, reason: reason || `Category ${letter}: ${FACTUALITY_CATEGORIES[letter]}` };
  }
  const legacy = /\s*\(?([a-eA-E])\)/.exec(reply);
  if (!legacy) return undefined;
  const after = /\)\s*(.*)/s.exec(reply)?.[1]?.trim();
  return { letter: legacy[1].toUpperCase(), reason: after || reply };
}

async function score(input: ScoreInput): Promise<ScoreResult> {
  const grader = requireGrader(input, 'factuality');
  if (typeof input.value !== 'string')
    throw new ScorerInputError('"factuality" assertion type must have a string value (the reference answer)');
  const template = rubricPromptText(rubricPromptOption(input), FACTUALITY_PROMPT);
  // Grading variables after the test's vars (promptfoo 0.123): a var cannot shadow them.
  const vars = { ...input.vars, input: input.prompt, ideal: input.value, completion: tryParse(input.output) };
  const { reply } = await askGrader(grader, template, vars);
  const category = readCategory(reply);
  if (category === 'invalid') throw unreadable(grader, 'named a category other than A–E', reply);
  if (!category) throw unreadable(grader, 'named no category (A)–(E)', reply);
  const scores = categoryScores(input.spec.options?.factuality);
  const value = scores[category.letter];
  return {
    pass: value > 0,
    score: value,
    reason: category.reason,
    details: { grader: grader.id, graderReply: reply, category: category.letter },
  };
}

/** The factuality scorer under one of its names. */
function factuality(type: string): Scorer {
  return {
    type,
    description: 'a grader model compares the output with a reference answer (categories A–E)',
    graded: true,
    validate(spec) {
      if (typeof spec.value !== 'string')
        return `"${type}" assertion type must have a string value (the reference answer)`;
      const f = spec.options?.factuality;
      if (f !== undefined && !isRecord(f))
        return '`options.factuality` must map subset/superset/agree/disagree/differButFactual to scores';
      return undefined;
    },
    score,
  };
}

export const factualityScorer = factuality('factuality');
export const modelGradedFactualityScorer = factuality('model-graded-factuality');
