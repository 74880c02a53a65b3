// Load-time checks shared by the javascript and python assertions.
import type { AssertionSpec } from '../../core/types.js';
import { parseScriptRef, scriptFileProblem } from '../../runtime/script-ref.js';
import { describeShape, writtenType } from '../util.js';

/**
 * What is wrong with a script assertion's value, or undefined: it must be non-empty text, and a
 * `file://` value must name a script assay can run. Inline code is checked by the caller.
 */
export function scriptValueProblem(spec: AssertionSpec, type: string): string | undefined {
  const written = writtenType(type, spec);
  const { value } = spec;
  if (value === undefined) return `${written} needs a value: inline code or file://path`;
  if (typeof value !== 'string') {
    return `"${type}" needs a string value (inline code or file://path), got ${describeShape(value)}`;
  }
  if (value.trim() === '') return `${written} needs code, got an empty string`;
  const ref = parseScriptRef(value.trim());
  return ref ? scriptFileProblem(ref, written) : undefined;
}
