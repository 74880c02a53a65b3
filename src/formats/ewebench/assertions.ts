// ÈwéBench's eval methods as assay assertions: general scorers with parameters, composed with
// `mean`, plus the format's own `ewebench:ewe-quality`. Compat mode keeps the tool's defects.
import type { AssertionSpec } from '../../core/types.js';
import { EWE_MARKERS } from './ewe-quality.js';

export type Mode = 'compat' | 'fixed';

/** The eval methods the tool knows; any other value is scored as `ewe_quality`, as the tool does. */
export const EVAL_METHODS = [
  'exact_match',
  'multiple_choice',
  'keywords',
  'format',
  'ewe_quality',
  'composite',
];

/** The `expected_format` keys the tool's format check reads, in the order it checks them. */
export const FORMAT_KEYS = [
  'contains_ewe',
  'min_length',
  'max_length',
  'contains_function_call',
  'markdown_elements',
];

/** A test as the loader has checked it (field types are valid). */
export interface EweTest {
  expected?: string;
  expected_keywords?: string[];
  expected_format?: Record<string, unknown>;
  eval_method?: string;
}

/** Why a test with no `expected` cannot be scored (the tool stops with a KeyError there). */
export function missingExpectedReason(method: string): string {
  return `${method} test has no "expected" answer, so no score is possible (the ÈwéBench tool itself stops here with KeyError: 'expected')`;
}

function keywordSpec(test: EweTest): AssertionSpec {
  return { type: 'keyword-recall', value: test.expected_keywords ?? [], options: { ifEmpty: 0 } };
}

const qualitySpec: AssertionSpec = { type: 'ewebench:ewe-quality' };

/** A length bound as Python compares it: a bool is the int it is (True is 1, False is 0). */
function pyNumber(v: unknown): unknown {
  return typeof v === 'boolean' ? Number(v) : v;
}

/**
 * The format check: the mean of one check per key present (the value is never read, except that
 * fixed mode honours `false` for contains_ewe and contains_function_call); no known key scores 0.
 */
export function formatSpec(format: Record<string, unknown>, mode: Mode): AssertionSpec {
  const parts: AssertionSpec[] = [];
  const negated = (key: string): boolean => mode === 'fixed' && format[key] === false;
  if ('contains_ewe' in format)
    parts.push({ type: 'icontains-any', value: EWE_MARKERS, negate: negated('contains_ewe') });
  if ('min_length' in format) parts.push({ type: 'length', value: { min: pyNumber(format.min_length) } });
  if ('max_length' in format) parts.push({ type: 'length', value: { max: pyNumber(format.max_length) } });
  if ('contains_function_call' in format)
    parts.push({ type: 'contains', value: '<function_call>', negate: negated('contains_function_call') });
  if ('markdown_elements' in format)
    parts.push({ type: 'markdown-elements', value: format.markdown_elements });
  return { type: 'mean', value: parts, options: { ifEmpty: 0 } };
}

/** The single assertion that scores a test like the tool's eval method does. */
export function assertionFor(test: EweTest, mode: Mode): AssertionSpec {
  const method = test.eval_method ?? 'keywords';
  switch (method) {
    case 'exact_match':
      if (test.expected === undefined) return { type: 'unscorable', value: missingExpectedReason(method) };
      return { type: 'equals', value: test.expected, options: { strip: true, ignoreCase: true } };
    case 'multiple_choice':
      if (test.expected === undefined) return { type: 'unscorable', value: missingExpectedReason(method) };
      // The tool interpolates the answer unescaped into its regexes; fixed mode reads it as a literal.
      return {
        type: 'multiple-choice',
        value: test.expected,
        options: { prefixChars: 5, ...(mode === 'compat' ? { pythonPatterns: true } : {}) },
      };
    case 'keywords':
      return keywordSpec(test);
    case 'format':
      return formatSpec(test.expected_format ?? {}, mode);
    case 'composite':
      return {
        type: 'mean',
        value: [keywordSpec(test), qualitySpec, formatSpec(test.expected_format ?? {}, mode)],
      };
    default:
      return qualitySpec;
  }
}
