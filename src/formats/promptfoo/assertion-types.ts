// promptfoo's assertion types, each with what assay does with it: one table, in promptfoo's enum
// order (BaseAssertionTypesSchema, then SpecialAssertionTypesSchema of promptfoo 0.123.1). The
// order matters: the CSV `__expected` grammar tries the base types as a regex alternation, so
// `similar` wins over `similar:cosine`. A type without `refused` runs on the registered scorer of
// the same name; test/formats/promptfoo/assertion-types.test.ts holds the table to promptfoo's
// lists and to the scorer registry.

/** How a CSV `__expected` cell (`type(0.8):value`) gives a type its value. */
export type CellValue =
  /** A comma-separated list. */
  | 'list'
  /** The text after the colon as written. */
  | 'raw'
  /** The trimmed text, with the threshold in brackets (default 0.75, 0.8 for `similar`). */
  | 'threshold';

/** One promptfoo assertion type and what assay does with it. */
export interface PromptfooAssertionType {
  type: string;
  /** Why assay refuses it before the run (the end of "assertion type "x" …"); absent when assay runs it. */
  refused?: string;
  /** How an `__expected` cell gives its value; absent: the trimmed text after the colon. */
  cell?: CellValue;
  /** A special type (no `not-` form, not in the `__expected` grammar). */
  special?: true;
}

const NOT_YET = 'is a promptfoo type assay does not support yet';

/** Every promptfoo assertion type, in promptfoo's order. */
export const PROMPTFOO_ASSERTION_TYPES: readonly PromptfooAssertionType[] = [
  { type: 'agent-rubric', refused: "judges an agent's trace, which assay does not record" },
  { type: 'answer-relevance', cell: 'threshold' },
  { type: 'bleu' },
  {
    type: 'classifier',
    cell: 'threshold',
    refused: 'needs a HuggingFace text-classification provider, which assay does not have',
  },
  { type: 'contains' },
  { type: 'contains-all', cell: 'list' },
  { type: 'contains-any', cell: 'list' },
  { type: 'contains-html' },
  { type: 'contains-json', cell: 'raw' },
  { type: 'contains-sql' },
  { type: 'contains-xml' },
  { type: 'context-faithfulness', cell: 'threshold' },
  { type: 'context-recall', cell: 'threshold' },
  { type: 'context-relevance', cell: 'threshold' },
  {
    type: 'conversation-relevance',
    refused: 'judges a multi-turn `_conversation`, a var assay does not provide',
  },
  { type: 'cost', cell: 'threshold' },
  { type: 'equals' },
  { type: 'factuality' },
  { type: 'finish-reason' },
  { type: 'g-eval' },
  { type: 'gleu' },
  { type: 'guardrails', refused: NOT_YET },
  { type: 'icontains' },
  { type: 'icontains-all', cell: 'list' },
  { type: 'icontains-any', cell: 'list' },
  { type: 'is-html' },
  { type: 'is-json', cell: 'raw' },
  { type: 'is-refusal' },
  { type: 'is-sql' },
  { type: 'is-valid-function-call', refused: NOT_YET },
  { type: 'is-valid-openai-function-call', refused: NOT_YET },
  { type: 'is-valid-openai-tools-call' },
  { type: 'is-xml' },
  { type: 'javascript' },
  { type: 'latency', cell: 'threshold' },
  { type: 'levenshtein', cell: 'threshold' },
  { type: 'llm-rubric' },
  { type: 'pi', refused: "is scored by Pi Labs' remote scoring service, which assay does not call" },
  { type: 'meteor' },
  { type: 'model-graded-closedqa' },
  { type: 'model-graded-factuality' },
  {
    type: 'moderation',
    refused:
      "needs a moderation API (OpenAI's /moderations or LlamaGuard on Replicate), which assay does not call",
  },
  { type: 'perplexity', cell: 'threshold' },
  { type: 'perplexity-score', cell: 'threshold' },
  { type: 'python' },
  { type: 'regex' },
  { type: 'rouge-n', cell: 'threshold' },
  { type: 'ruby' },
  { type: 'similar', cell: 'threshold' },
  { type: 'similar:cosine' },
  { type: 'similar:dot' },
  { type: 'similar:euclidean' },
  { type: 'starts-with', cell: 'threshold' },
  { type: 'tool-call-f1', refused: NOT_YET },
  { type: 'skill-used', refused: NOT_YET },
  { type: 'trajectory:goal-success', refused: "judges an agent's trajectory, which assay does not record" },
  { type: 'trajectory:tool-args-match', refused: NOT_YET },
  { type: 'trajectory:step-count', refused: NOT_YET },
  { type: 'trajectory:tool-sequence', refused: NOT_YET },
  { type: 'trajectory:tool-used', refused: NOT_YET },
  { type: 'trace-error-spans', refused: NOT_YET },
  { type: 'trace-span-count', refused: NOT_YET },
  { type: 'trace-span-duration', refused: NOT_YET },
  { type: 'search-rubric', refused: 'needs a grader with live web search, which assay does not provide' },
  { type: 'webhook', refused: NOT_YET },
  { type: 'word-count' },
  { type: 'select-best', special: true },
  { type: 'human', special: true, refused: NOT_YET },
  { type: 'max-score', special: true },
];

/** promptfoo's base assertion types (BaseAssertionTypesSchema), in its order. */
export const PROMPTFOO_BASE_TYPES: readonly string[] = PROMPTFOO_ASSERTION_TYPES.filter(
  (t) => !t.special,
).map((t) => t.type);

/** Types promptfoo accepts that are not base types (no `not-` form). */
export const PROMPTFOO_SPECIAL_TYPES: readonly string[] = PROMPTFOO_ASSERTION_TYPES.filter(
  (t) => t.special,
).map((t) => t.type);

/** Base types of older releases that configs written for them may still use. */
const LEGACY_BASE_TYPES: readonly string[] = ['rouge-l', 'rouge-s'];

const byType = new Map(PROMPTFOO_ASSERTION_TYPES.map((t) => [t.type, t]));
const bases = new Set([...PROMPTFOO_BASE_TYPES, ...LEGACY_BASE_TYPES]);

/** A base type's entry (without `not-`), or undefined for a special or unknown type. */
export function baseTypeEntry(type: string): PromptfooAssertionType | undefined {
  const entry = byType.get(type);
  return entry?.special ? undefined : entry;
}

/** Why assay refuses a promptfoo type (a base type with or without `not-`, or a special one), or undefined. */
export function refusedType(written: string): string | undefined {
  const entry = byType.get(written) ?? baseTypeEntry(written.startsWith('not-') ? written.slice(4) : '');
  return entry?.refused;
}

/** Whether promptfoo knows this assertion type (with or without `not-`, red-team types included). */
export function isPromptfooAssertionType(type: string): boolean {
  if (type.startsWith('promptfoo:redteam:')) return true;
  if (bases.has(type) || PROMPTFOO_SPECIAL_TYPES.includes(type)) return true;
  return type.startsWith('not-') && bases.has(type.slice(4));
}
