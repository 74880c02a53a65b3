import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import { yamlLib } from '../../core/yaml-lib.js';
import { ScorerInputError } from '../types.js';
import { describeShape, hasTemplate, truncate } from '../util.js';
import { schemaFormats } from './formats.js';

/** A compiled schema: `check` returns undefined when the data conforms, else ajv's error text. */
export interface SchemaValidator {
  check(data: unknown): string | undefined;
}

type Entry = { validator: SchemaValidator; schema: object | boolean } | { error: string };

const CACHE_LIMIT = 256;
/** Compiled schemas keyed by their text: thousands of cases usually share one or two schemas. */
const byText = new Map<string, Entry>();
/** The same spec object is scored again and again; this skips even the stringify for it. */
const byObject = new WeakMap<object, Entry>();

let ajv: Ajv | undefined;
let loading: Promise<Ajv> | undefined;

/** What createAjv needs of the module, however it was loaded (import or require). */
type AjvModule = { Ajv: typeof import('ajv').Ajv };

function createAjv(mod: AjvModule): Ajv {
  // Strict schema checks as in promptfoo (unknown keywords are schema errors); type-strictness
  // warnings would only be logged, so they are off rather than printed mid-run.
  ajv = new mod.Ajv({
    strictSchema: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    logger: false,
    // Schemas are compiled independently; registering their $id would make two cases that share
    // an $id but differ in content collide.
    addUsedSchema: false,
    formats: schemaFormats,
  });
  loading = Promise.resolve(ajv);
  return ajv;
}

/** ajv is loaded on first use: most suites never validate a schema, and ajv is slow to import. */
function loadAjv(): Promise<Ajv> {
  loading ??= import('ajv').then((mod) => ajv ?? createAjv(mod));
  return loading;
}

/** The same instance, loaded synchronously: load-time validation cannot await. */
function loadAjvSync(): Ajv {
  return ajv ?? createAjv(createRequire(import.meta.url)('ajv') as AjvModule);
}

/**
 * Whether a value is a schema to check against: promptfoo's rule is a truthy value that is text
 * (inline JSON/YAML or file://) or an object; `false`, `true`, `0` or `''` check JSON alone.
 */
export function hasSchema(value: unknown): boolean {
  return (typeof value === 'string' && value !== '') || (typeof value === 'object' && value !== null);
}

function cacheKey(value: unknown, type: string): string {
  if (typeof value === 'string') return `s:${value}`;
  if (typeof value === 'boolean') return `b:${value}`;
  if (typeof value === 'object' && value !== null) return `j:${JSON.stringify(value)}`;
  throw new ScorerInputError(
    `"${type}" schema must be an object, a boolean or a YAML/JSON string, got ${describeShape(value)}`,
  );
}

/** Parses a schema given as an object, a boolean or YAML/JSON text; throws ScorerInputError. */
function schemaFrom(value: unknown, type: string): object | boolean {
  let schema = value;
  if (typeof value === 'string') {
    try {
      // 'error' level: warnings (unknown tags) would be printed mid-run; errors still throw.
      schema = yamlLib().parse(value, { logLevel: 'error', merge: true });
    } catch (err) {
      const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
      throw new ScorerInputError(`Invalid JSON schema: "${type}" value is not valid YAML or JSON (${why})`);
    }
  }
  if (
    typeof schema === 'boolean' ||
    (typeof schema === 'object' && schema !== null && !Array.isArray(schema))
  ) {
    return schema;
  }
  const shown = typeof value === 'string' ? ` (${JSON.stringify(truncate(value, 80))})` : '';
  throw new ScorerInputError(
    `Invalid JSON schema: "${type}" schema must be an object or a boolean, got ${describeShape(schema)}${shown}`,
  );
}

function compile(instance: Ajv, value: unknown, type: string): Entry {
  try {
    const schema = schemaFrom(value, type);
    const validate: ValidateFunction = instance.compile(schema);
    const validator: SchemaValidator = {
      check: (data) => (validate(data) ? undefined : instance.errorsText(validate.errors)),
    };
    return { validator, schema };
  } catch (err) {
    if (err instanceof ScorerInputError) return { error: err.message };
    return { error: `Invalid JSON schema: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function remember(key: string, value: unknown, entry: Entry): void {
  if (byText.size >= CACHE_LIMIT) {
    const oldestKey = byText.keys().next().value;
    if (oldestKey !== undefined) {
      const oldest = byText.get(oldestKey);
      byText.delete(oldestKey);
      // ajv keeps every compiled schema object in its own cache; drop ours so memory stays bounded.
      if (ajv && oldest && 'schema' in oldest && typeof oldest.schema === 'object')
        ajv.removeSchema(oldest.schema);
    }
  }
  byText.set(key, entry);
  if (typeof value === 'object' && value !== null) byObject.set(value, entry);
}

function unwrap(entry: Entry): SchemaValidator {
  if ('error' in entry) throw new ScorerInputError(entry.error);
  return entry.validator;
}

/** The validator for a schema value if it is already compiled (no await on the hot path). */
export function cachedSchemaValidator(value: unknown, type: string): SchemaValidator | undefined {
  if (typeof value !== 'object' || value === null) {
    const entry = byText.get(cacheKey(value, type));
    return entry ? unwrap(entry) : undefined;
  }
  let entry = byObject.get(value);
  if (!entry) {
    entry = byText.get(cacheKey(value, type));
    if (entry) byObject.set(value, entry);
  }
  return entry ? unwrap(entry) : undefined;
}

/** Compiles (once, then cached) the schema in an is-json/contains-json value; throws ScorerInputError. */
export async function schemaValidator(value: unknown, type: string): Promise<SchemaValidator> {
  const cached = cachedSchemaValidator(value, type);
  if (cached) return cached;
  const key = cacheKey(value, type);
  const instance = ajv ?? (await loadAjv());
  const entry = byText.get(key) ?? compile(instance, value, type);
  remember(key, value, entry);
  return unwrap(entry);
}

/**
 * Load-time check of a schema value: its shape, and (for a literal schema) that ajv compiles it,
 * so `{type: objekt}` is reported before any model is called rather than as an error per job.
 * The compiled schema stays in the cache for score time; a templated string waits until then.
 */
export function schemaValueProblem(value: unknown, type: string): string | undefined {
  if (!hasSchema(value)) return undefined;
  if (typeof value === 'string' && hasTemplate(value)) return undefined;
  let key: string;
  try {
    key = cacheKey(value, type);
    schemaFrom(value, type);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  let entry = byText.get(key);
  if (!entry) {
    entry = compile(loadAjvSync(), value, type);
    remember(key, value, entry);
  }
  return 'error' in entry ? entry.error : undefined;
}
