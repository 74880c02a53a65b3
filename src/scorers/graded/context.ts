// The RAG assertions `context-recall`, `context-relevance` and `context-faithfulness`: the grader
// reads the retrieved context (`vars.context`, text or a list of chunks) against the ground truth,
// the query or the output. Like promptfoo's handlers, `not-` is ignored.
import { runTransform, transformLabel } from '../code/transform.js';
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
async function contextOf(input: ScoreInput, type: string): Promise<string | string[]> {
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
  if (isTexts(c)) return c;
  throw new ScorerInputError(
    `${type} needs the retrieved context in the \`context\` var (text or a list of texts), or a \`contextTransform\`${c === undefined ? '' : `; got ${typeof c}`}`,
  );
}

/** Chunks joined by blank lines, as the grader reads them. */
function serialise(context: string | string[]): string {
  return Array.isArray(context) ? context.join('\n\n') : context;
}

/** Non-blank lines: promptfoo's "sentences" of grader replies and contexts. */
function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
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
  const context = serialise(await contextOf(input, 'context-recall'));
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
  const threshold = thresholdOf(input, 0);
  const pass = value >= threshold - Number.EPSILON;
  return {
    pass,
    score: value,
    reason: `Recall ${value.toFixed(2)} is ${pass ? '>=' : '<'} ${threshold}`,
    details: { graderReply: reply, attributedSentences: hits, totalSentences: classified.length },
  };
}

async function relevance(input: ScoreInput): Promise<ScoreResult> {
  const grader = requireGrader(input, 'context-relevance');
  const query = queryOf(input, 'context-relevance');
  const context = await contextOf(input, 'context-relevance');
  const template = rubricPromptText(rubricPromptOption(input), CONTEXT_RELEVANCE);
  const { reply } = await askGrader(grader, template, { context: serialise(context), query });
  const units = Array.isArray(context) ? context.filter((chunk) => chunk.trim() !== '') : lines(context);
  const insufficient = reply.includes(CONTEXT_RELEVANCE_BAD);
  const relevant = insufficient ? 0 : Math.min(new Set(lines(reply)).size, units.length);
  const value = units.length > 0 ? relevant / units.length : 0;
  const threshold = thresholdOf(input, 0);
  const pass = value >= threshold - Number.EPSILON;
  return {
    pass,
    score: value,
    reason: `Context relevance ${value.toFixed(2)} is ${pass ? '>=' : '<'} ${threshold}`,
    details: { graderReply: reply, relevantUnits: relevant, totalUnits: units.length },
  };
}

/** One of the two faithfulness prompts from a `rubricPrompt` pair (text or `{content}`), else the default. */
function faithfulnessPrompt(input: ScoreInput, index: number, fallback: string): string {
  const custom = rubricPromptOption(input);
  const entry = Array.isArray(custom) ? custom[index] : undefined;
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
  const nli = await askGrader(grader, faithfulnessPrompt(input, 1, CONTEXT_FAITHFULNESS_NLI_STATEMENTS), {
    ...input.vars,
    context,
    statements,
  });
  const marker = 'final verdict for each statement in order:';
  let verdicts = nli.reply.toLowerCase().trim();
  let value = 0;
  if (statements.length > 0) {
    if (verdicts.includes(marker)) {
      verdicts = verdicts.slice(verdicts.indexOf(marker) + marker.length);
      const answers = verdicts.split('.').filter((a) => a.trim() !== '');
      if (answers.length === 0) throw unreadable(grader, 'listed no final verdicts', nli.reply);
      value = 1 - answers.filter((a) => !a.includes('yes')).length / statements.length;
    } else {
      const no = verdicts.split('verdict: no').length - 1;
      const yes = verdicts.split('verdict: yes').length - 1;
      if (no + yes === 0) throw unreadable(grader, 'gave no Yes/No verdicts', nli.reply);
      value = 1 - no / statements.length;
    }
  }
  value = Math.min(1, Math.max(0, value));
  const threshold = thresholdOf(input, 0);
  const pass = value >= threshold - Number.EPSILON;
  return {
    pass,
    score: value,
    reason: `Faithfulness ${value.toFixed(2)} is ${pass ? '>=' : '<'} ${threshold}`,
    details: { statements, graderReplies: [longform.reply, nli.reply] },
  };
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
    const custom = spec.options?.rubricPrompt;
    if (custom !== undefined && custom !== null && (!Array.isArray(custom) || custom.length !== 2))
      return 'context-faithfulness `rubricPrompt` must be a list of two prompts (statements, then verdicts)';
    return undefined;
  },
  score: faithfulness,
};
