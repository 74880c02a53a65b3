// apastra's own JSON Schemas (copied unmodified into schema/apastra/, Apache-2.0, see NOTICE.md
// there), compiled with ajv under the draft each declares and `strict: false`, as apastra's
// validators run ajv (`--strict=false`).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { assayPackage } from '../../package-root.js';
import type { DocPath } from './documents.js';

/** The schemas assay reads or writes apastra files by. */
export type SchemaName =
  | 'suite'
  | 'dataset-case'
  | 'dataset-manifest'
  | 'evaluator'
  | 'prompt-spec'
  | 'quick-eval'
  | 'regression-policy'
  | 'baseline'
  | 'promptops-config'
  | 'run-manifest'
  | 'scorecard'
  | 'run-case'
  | 'artifact-refs'
  | 'regression-report'
  | 'run-failures';

const NAMES: SchemaName[] = [
  'suite',
  'dataset-case',
  'dataset-manifest',
  'evaluator',
  'prompt-spec',
  'quick-eval',
  'regression-policy',
  'baseline',
  'promptops-config',
  'run-manifest',
  'scorecard',
  'run-case',
  'artifact-refs',
  'regression-report',
  'run-failures',
];

/** One schema violation: where in the document, and what is wrong. */
export interface SchemaProblem {
  path: DocPath;
  message: string;
  /** The ajv keyword (`required`, `additionalProperties`, `pattern`, …). */
  keyword: string;
  /** For `required` and `additionalProperties`: the property named. */
  property?: string;
}

type AjvClass = new (
  opts: Record<string, unknown>,
) => {
  addSchema(schema: object): unknown;
  getSchema(id: string): ValidateFunction | undefined;
  compile(schema: object): ValidateFunction;
};

let validators: Map<SchemaName, ValidateFunction> | undefined;

function load(): Map<SchemaName, ValidateFunction> {
  if (validators) return validators;
  const require = createRequire(import.meta.url);
  const Ajv2020 = (require('ajv/dist/2020') as { Ajv2020: AjvClass }).Ajv2020;
  const Ajv07 = (require('ajv') as { Ajv: AjvClass }).Ajv;
  const options = { strict: false, allErrors: true, logger: false, validateFormats: false };
  const ajv2020 = new Ajv2020(options);
  const ajv07 = new Ajv07(options);
  const schemas = new Map<SchemaName, Record<string, unknown>>();
  // The copies are in `<package>/schema/apastra/`.
  const schemaDir = join(assayPackage().root, 'schema', 'apastra');
  for (const name of NAMES) {
    const schema = JSON.parse(readFileSync(join(schemaDir, `${name}.schema.json`), 'utf8')) as Record<
      string,
      unknown
    >;
    schemas.set(name, schema);
    // quick-eval `$ref`s dataset-case by its `$id`: every 2020-12 schema is known to the instance.
    if (!String(schema.$schema).includes('draft-07')) ajv2020.addSchema(schema);
  }
  validators = new Map();
  for (const [name, schema] of schemas) {
    const draft07 = String(schema.$schema).includes('draft-07');
    const fn = draft07 ? ajv07.compile(schema) : ajv2020.getSchema(String(schema.$id));
    if (!fn) throw new Error(`apastra schema ${name} did not compile`);
    validators.set(name, fn);
  }
  return validators;
}

function pathOf(instancePath: string): DocPath {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function describe(e: ErrorObject): SchemaProblem {
  const path = pathOf(e.instancePath);
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required')
    return {
      path,
      keyword: e.keyword,
      property: String(params.missingProperty),
      message: `missing required key "${String(params.missingProperty)}"`,
    };
  if (e.keyword === 'additionalProperties')
    return {
      path: [...path, String(params.additionalProperty)],
      keyword: e.keyword,
      property: String(params.additionalProperty),
      message: `key "${String(params.additionalProperty)}" is not allowed here`,
    };
  const at = path.length > 0 ? `"${path.join('.')}" ` : '';
  return { path, keyword: e.keyword, message: `${at}${e.message ?? 'is invalid'}` };
}

/** Validates a value against one of apastra's schemas; an empty list when it conforms. */
export function schemaProblems(name: SchemaName, value: unknown): SchemaProblem[] {
  const fn = load().get(name) as ValidateFunction;
  if (fn(value)) return [];
  const seen = new Set<string>();
  const out: SchemaProblem[] = [];
  for (const e of fn.errors ?? []) {
    // Branch errors of a failed `anyOf`/`oneOf` repeat the same point; one line each.
    const p = describe(e);
    const key = `${p.path.join('/')}\u0000${p.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}
