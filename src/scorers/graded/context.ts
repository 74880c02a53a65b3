// The RAG assertions `context-recall`, `context-relevance` and `context-faithfulness`: the grader
// reads the retrieved context (`vars.context`, text or a list of chunks) against the ground truth,
// the query or the output. As in promptfoo 0.123.1: the default threshold is 0.5, and `not-` flips
// the verdict and scores 1 − score, except when the grader's reply was unusable (that failure
// stays a failure).
import { runTransform, transformLabel } from '../../runtime/transform.js';
import { type ScoreInput, type ScoreResult, type Scorer, ScorerInputError } from '../types.js';
import {
  CONTEXT_FAITHFULNESS_LONGFORM,
  CONTEXT_FAITHFULNESS_NLI_STATEMENTS,
  CONTEXT_RECALL,
  CONTEXT_RECALL_ATTRIBUTED,
  CONTEXT_RECALL_NOT_ATTRIBUTED,
  CONTEXT_RELEVANCE,
  CONTEXT_RELEVANCE_BAD,
} from './prompts.js';
import {
  askGrader,
  isRecord,
  requireGrader,
  rubricPromptOption,
  rubricPromptText,
  thresholdOf,
  tryParse,
  unreadable,
} from './rubric.js';

const isTexts = (c: unknown): c is string | string[] =>
  typeof c === 'string' || (Array.isArray(c) && c.every((x) => typeof x === 'string'));

/**
 * The retrieved context: what the assertion's `contextTransform` makes of the output (after the
 * provider's transform, as promptfoo gives it), else `vars.context`; as text or a list of chunks.
 */
async function contextOf(input: ScoreInput, type: string, fallback?: string): Promise<string | string[]> {
  const code = input.spec.options?.contextTransform;
  if (typeof code === 'string') {
    const value = 'providerOutput' in input ? input.providerOutput : input.outputValue;
    // A TransformError (the code threw or returned nothing) makes the job an error, naming the code.
    const c = await runTransform(
      code,
      value,
      { vars: input.vars, prompt: { label: input.prompt } },
      {
        basePath: input.basePath,
      },
    );
    if (isTexts(c) && (Array.isArray(c) ? c.length > 0 : c !== '')) return c;
    throw new ScorerInputError(
      `contextTransform (${transformLabel(code)}) must return non-empty text or a list of texts, got ${Array.isArray(c) ? 'an empty or mixed list' : c === '' ? 'an empty string' : typeof c}`,
    );
  }
  const c = input.vars.context;
  if (isTexts(c) && c.length > 0) return c;
  // context-recall without a context grades against the prompt, as promptfoo does.
  if ((c === undefined || c === '' || c === null) && fallback) return fallback;
  throw new ScorerInputError(
    `${type} needs the retrieved context in the \`context\` var (text or a list of texts), or a \`contextTransform\`${c === undefined ? '' : `; got ${Array.isArray(c) ? 'an empty or mixed list' : c === '' ? 'an empty string' : typeof c}`}`,
  );
}

/** promptfoo's default threshold for the RAG assertions (0.123.1). */
export const RAG_DEFAULT_THRESHOLD = 0.5;

/** `not-`: the verdict flipped and the score inverted (the reason is kept, as in promptfoo). */
export function ragInverse(input: ScoreInput, result: ScoreResult): ScoreResult {
  if (input.spec.negate !== true) return result;
  return { ...result, pass: !result.pass, score: 1 - result.score };
}

/** A grader reply that reads but gives nothing to score: a failure, never inverted by `not-`. */
function graderFailure(reason: string, details: Record<string, unknown>): ScoreResult {
  return { pass: false, score: 0, reason, details };
}

/** Chunks joined by blank lines, as the grader reads them. */
function serialise(context: string | string[]): string {
  return Array.isArray(context) ? context.join('\n\n') : context;
}

/** Non-blank lines: promptfoo's "sentences" of grader replies and contexts. */
function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/**
 * promptfoo's units of a context: text on two or more non-blank lines is one unit a line; a single
 * prose block is split after `.`, `!` or `?` followed by whitespace. Units are trimmed, and a bare
 * list marker (`1.`, `2)`) is not a unit.
 */
export function sentenceUnits(text: string): string[] {
  const nonBlank = lines(text);
  return (nonBlank.length > 1 ? nonBlank : text.split(/(?<=[.!?])\s+/))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0 && !/^\d+[.)]$/.test(sentence));
}

function queryOf(input: ScoreInput, type: string): string {
  const q = input.vars.query;
  if (typeof q !== 'string')
    throw new ScorerInputError(`${type} needs the question in the \`query\` var (text)`);
  return q;
}

async function recall(input: ScoreInput): Promise<ScoreResult> {
  const grader = requireGrader(input, 'context-recall');
  if (typeof input.value !== 'string')
    throw new ScorerInputError('"context-recall" assertion type must have a string value (the ground truth)');
  const context = serialise(await contextOf(input, 'context-recall', input.prompt));
  const template = rubricPromptText(rubricPromptOption(input), CONTEXT_RECALL);
  // The grading variables go last (promptfoo 0.123): a test's own `context` or `groundTruth` var
  // must not replace what is graded (a contextTransform's extract, the joined chunks of a list).
  const { reply } = await askGrader(grader, template, { ...input.vars, context, groundTruth: input.value });
  const attributed = CONTEXT_RECALL_ATTRIBUTED.toLowerCase();
  const notAttributed = CONTEXT_RECALL_NOT_ATTRIBUTED.toLowerCase();
  const classified = lines(reply).filter((l) => {
    const lower = l.toLowerCase();
    return lower.includes(attributed) || lower.includes(notAttributed);
  });
  if (classified.length === 0)
    throw unreadable(grader, 'classified no sentence as [Attributed] or [Not Attributed]', reply);
  const hits = classified.filter((l) => !l.toLowerCase().includes(notAttributed)).length;
  const value = hits / classified.length;
  const threshold = thresholdOf(input, RAG_DEFAULT_THRESHOLD);
  const pass = value >= threshold - Number.EPSILON;
  return ragInverse(input, {
    pass,
    score: value,
    reason: `Recall ${value.toFixed(2)} is ${pass ? '>=' : '<'} ${threshold}`,
    details: { graderReply: reply, attributedSentences: hits, totalSentences: classified.length },
  });
}

const normalised = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').trim();

async function relevance(input: ScoreInput): Promise<ScoreResult> {
  const grader = requireGrader(input, 'context-relevance');
  const query = queryOf(input, 'context-relevance');
  const context = await contextOf(input, 'context-relevance');
  const contextText = serialise(context);
  const template = rubricPromptText(rubricPromptOption(input), CONTEXT_RELEVANCE);
  const { reply } = await askGrader(grader, template, { context: contextText, query });
  // promptfoo 0.123.1: a list is one unit a chunk; text on several lines one a line; one prose
  // block is split into sentences. The reply is split the same way as the context.
  const preSegmented = Array.isArray(context) || lines(context).length > 1;
  const units = Array.isArray(context)
    ? context.filter((chunk) => chunk.trim() !== '')
    : sentenceUnits(context);
  const insufficient = reply.includes(CONTEXT_RELEVANCE_BAD);
  const extracted = insufficient ? [] : [...new Set(preSegmented ? lines(reply) : sentenceUnits(reply))];
  const details = { graderReply: reply, extractedSentences: extracted, totalUnits: units.length };
  // An extraction that quotes nothing of the context scores 0 (and `not-` does not turn it into a pass).
  const inContext = normalised(contextText);
  if (
    extracted.length > 0 &&
    !extracted.some((sentence) =>
      inContext.includes(normalised(sentence.replace(/^\s*(?:\d+[.)]|[-*])\s*/, ''))),
    )
  )
    return graderFailure('Grader output does not quote the provided context', details);
  const relevant = Math.min(extracted.length, units.length);
  const value = units.length > 0 ? relevant / units.length : 0;
  const threshold = thresholdOf(input, RAG_DEFAULT_THRESHOLD);
  const pass = value >= threshold - Number.EPSILON;
  return ragInverse(input, {
    pass,
    score: value,
    reason: `Context relevance ${value.toFixed(2)} is ${pass ? '>=' : '<'} ${threshold}`,
    details: { ...details, relevantUnits: relevant },
  });
}

/** One of the two faithfulness prompts from a `rubricPrompt` list (text or `{content}`), else the default. */
function faithfulnessPrompt(input: ScoreInput, index: number, fallback: string): string {
  const custom = rubricPromptOption(input);
  if (custom === undefined || custom === null || custom === '') return fallback;
  if (!Array.isArray(custom))
    throw new ScorerInputError('context-faithfulness: rubricPrompt must be an array');
  const entry: unknown = custom[index];
  return rubricPromptText(isRecord(entry) ? entry.content : entry, fallback);
}

async function faithfulness(input: ScoreInput): Promise<ScoreResult> {
  const grader = requireGrader(input, 'context-faithfulness');
  const query = queryOf(input, 'context-faithfulness');
  const context = serialise(await contextOf(input, 'context-faithfulness'));
  const answer = tryParse(input.output);
  // Grading variables after the test's vars (promptfoo 0.123): a var cannot shadow them.
  const longform = await askGrader(grader, faithfulnessPrompt(input, 0, CONTEXT_FAITHFULNESS_LONGFORM), {
    ...input.vars,
    question: query,
    answer,
  });
  const statements = lines(longform.reply);
  // A reply with no statements fails the assertion (promptfoo's grader failure; `not-` keeps it).
  if (statements.length === 0)
    return graderFailure('Could not extract context-faithfulness statements', {
      statements,
      graderReplies: [longform.reply],
    });
  const nli = await askGrader(grader, faithfulnessPrompt(input, 1, CONTEXT_FAITHFULNESS_NLI_STATEMENTS), {
    ...input.vars,
    context,
    statements,
  });
  const marker = 'final verdict for each statement in order:';
  let verdicts = nli.reply.toLowerCase().trim();
  let unsupported: number;
  if (verdicts.includes(marker)) {
    verdicts = verdicts.slice(verdicts.indexOf(marker) + marker.length);
    const answers = verdicts.split('.').filter((a) => a.trim() !== '');
    // Every verdict must say yes or no; a statement left without one counts as unsupported.
    if (answers.length === 0 || !answers.every((a) => /\b(?:yes|no)\b/.test(a)))
      throw unreadable(grader, 'gave a verdict list with something other than yes/no', nli.reply);
    unsupported =
      answers.filter((a) => !a.includes('yes')).length + Math.max(0, statements.length - answers.length);
  } else {
    const no = verdicts.split('verdict: no').length - 1;
    const yes = verdicts.split('verdict: yes').length - 1;
    if (no + yes === 0) throw unreadable(grader, 'gave no Yes/No verdicts', nli.reply);
    unsupported = no + Math.max(0, statements.length - no - yes);
  }
  const value = Math.min(1, Math.max(0, 1 - unsupported / statements.length));
  const threshold = thresholdOf(input, RAG_DEFAULT_THRESHOLD);
  const pass = value >= threshold - Number.EPSILON;
  return ragInverse(input, {
    pass,
    score: value,
    reason: `Faithfulness ${value.toFixed(2)} is ${pass ? '>=' : '<'} ${threshold}`,
    details: { statements, graderReplies: [longform.reply, nli.reply] },
  });
}

export const contextRecallScorer: Scorer = {
  type: 'context-recall',
  description: 'share of the ground-truth sentences a grader attributes to the retrieved context',
  graded: true,
  validate: (spec) =>
    typeof spec.value === 'string'
      ? undefined
      : '"context-recall" assertion type must have a string value (the ground truth)',
  score: recall,
};

export const contextRelevanceScorer: Scorer = {
  type: 'context-relevance',
  description: 'share of the retrieved context a grader finds needed to answer the query',
  graded: true,
  score: relevance,
};

export const contextFaithfulnessScorer: Scorer = {
  type: 'context-faithfulness',
  description: 'share of the statements in the output a grader finds supported by the context',
  graded: true,
  validate(spec) {
    // promptfoo takes a list (a missing second prompt is the default); anything else fails when run.
    const custom = spec.options?.rubricPrompt;
    if (custom !== undefined && custom !== null && custom !== '' && !Array.isArray(custom))
      return 'context-faithfulness `rubricPrompt` must be a list of prompts (statements, then verdicts)';
    return undefined;
  },
  score: faithfulness,
};
