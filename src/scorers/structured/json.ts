import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { verdict } from '../util.js';
import { extractJsonObjects } from './json-extract.js';
import {
  cachedSchemaValidator,
  hasSchema,
  type SchemaValidator,
  schemaValidator,
  schemaValueProblem,
} from './json-schema.js';

function judgeIsJson(input: ScoreInput, validator: SchemaValidator | undefined): ScoreResult {
  const negate = input.spec.negate === true;
  let parsed: unknown;
  let isJson = true;
  try {
    parsed = JSON.parse(input.output);
  } catch {
    isJson = false;
  }
  if (isJson && validator) {
    const errors = validator.check(parsed);
    const pass = (errors === undefined) !== negate;
    if (pass) return verdict(true, '');
    return verdict(
      false,
      negate
        ? 'Output is JSON that conforms to the provided schema'
        : `JSON does not conform to the provided schema. Errors: ${errors}`,
    );
  }
  return verdict(isJson !== negate, `Expected output to ${negate ? 'not ' : ''}be valid JSON`);
}

function judgeContainsJson(input: ScoreInput, validator: SchemaValidator | undefined): ScoreResult {
  // promptfoo's handler: any object passes (none, under `not-`); with a schema, the first object
  // that conforms decides, and the last one's errors explain a failure.
  const negate = input.spec.negate === true;
  const objects = extractJsonObjects(input.output);
  let pass = negate ? objects.length === 0 : objects.length > 0;
  let message = `Expected output to ${negate ? 'not ' : ''}contain valid JSON`;
  if (validator) {
    for (const object of objects) {
      const errors = validator.check(object);
      pass = (errors === undefined) !== negate;
      if (errors === undefined) {
        if (negate) message = 'Output contains JSON conforming to the provided schema';
        break;
      }
      message = `JSON does not conform to the provided schema. Errors: ${errors}`;
    }
  }
  return verdict(pass, message);
}

/**
 * Runs a judgement with the value's compiled schema. Synchronous when there is no schema or it is
 * already compiled; an invalid schema throws ScorerInputError whatever the output, so the job's
 * error does not depend on what the model said.
 */
function withSchema(
  type: string,
  judge: (input: ScoreInput, validator: SchemaValidator | undefined) => ScoreResult,
): (input: ScoreInput) => ScoreResult | Promise<ScoreResult> {
  return (input) => {
    if (!hasSchema(input.value)) return judge(input, undefined);
    const cached = cachedSchemaValidator(input.value, type);
    if (cached) return judge(input, cached);
    return schemaValidator(input.value, type).then((validator) => judge(input, validator));
  };
}

/** is-json and contains-json, each with an optional JSON Schema. */
export const jsonScorers: Scorer[] = [
  {
    type: 'is-json',
    description: 'Output is valid JSON (any value), optionally conforming to a JSON Schema',
    validate: (spec) => schemaValueProblem(spec.value, 'is-json'),
    score: withSchema('is-json', judgeIsJson),
  },
  {
    type: 'contains-json',
    description: 'Output contains a JSON object, optionally one conforming to a JSON Schema',
    validate: (spec) => schemaValueProblem(spec.value, 'contains-json'),
    score: withSchema('contains-json', judgeContainsJson),
  },
];
