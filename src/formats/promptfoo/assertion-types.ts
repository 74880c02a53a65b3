// promptfoo's assertion type names, in promptfoo's enum order. The order matters: the CSV
// `__expected` grammar tries them as a regex alternation, so `similar` wins over `similar:cosine`.

/** promptfoo's base assertion types (BaseAssertionTypesSchema, newest version read). */
export const PROMPTFOO_BASE_TYPES: readonly string[] = [
  'answer-relevance',
  'bleu',
  'classifier',
  'contains',
  'contains-all',
  'contains-any',
  'contains-html',
  'contains-json',
  'contains-sql',
  'contains-xml',
  'context-faithfulness',
  'context-recall',
  'context-relevance',
  'conversation-relevance',
  'cost',
  'equals',
  'factuality',
  'finish-reason',
  'g-eval',
  'gleu',
  'guardrails',
  'icontains',
  'icontains-all',
  'icontains-any',
  'is-html',
  'is-json',
  'is-refusal',
  'is-sql',
  'is-valid-function-call',
  'is-valid-openai-function-call',
  'is-valid-openai-tools-call',
  'is-xml',
  'javascript',
  'latency',
  'levenshtein',
  'llm-rubric',
  'pi',
  'meteor',
  'model-graded-closedqa',
  'model-graded-factuality',
  'moderation',
  'perplexity',
  'perplexity-score',
  'python',
  'regex',
  'rouge-n',
  'ruby',
  'similar',
  'similar:cosine',
  'similar:dot',
  'similar:euclidean',
  'starts-with',
  'tool-call-f1',
  'skill-used',
  'trajectory:goal-success',
  'trajectory:tool-args-match',
  'trajectory:step-count',
  'trajectory:tool-sequence',
  'trajectory:tool-used',
  'trace-error-spans',
  'trace-span-count',
  'trace-span-duration',
  'search-rubric',
  'webhook',
  'word-count',
];

/** Base types of older releases that configs written for them may still use. */
const LEGACY_BASE_TYPES: readonly string[] = ['rouge-l', 'rouge-s'];

/** Types promptfoo accepts that are not base types (no `not-` form). */
export const PROMPTFOO_SPECIAL_TYPES: readonly string[] = ['select-best', 'human', 'max-score'];

const bases = new Set([...PROMPTFOO_BASE_TYPES, ...LEGACY_BASE_TYPES]);

/** Whether promptfoo knows this assertion type (with or without `not-`, red-team types included). */
export function isPromptfooAssertionType(type: string): boolean {
  if (type.startsWith('promptfoo:redteam:')) return true;
  if (bases.has(type) || PROMPTFOO_SPECIAL_TYPES.includes(type)) return true;
  return type.startsWith('not-') && bases.has(type.slice(4));
}
