// `providers:` (alias `targets:`): ids, `{id, label, config, prompts}` objects, the map form
// `{<id>: {config…}}`, and `file://` YAML/JSON files holding any of those.
import { extname } from 'node:path';
import { closest } from '../../core/suggest.js';
import type { ProviderSpec } from '../../core/types.js';
import { isHttpProviderId } from '../../providers/http-secrets.js';
import { isKnownProviderId, providerPatterns } from '../../providers/registry.js';
import { pythonProviderName, scriptProviderRef } from '../../providers/script-ref.js';
import { reportJsonRefs } from './config.js';
import {
  brief,
  didYouMean,
  errorAt,
  isRecord,
  isRefObject,
  type LoadContext,
  notYet,
  warnAt,
} from './context.js';
import { displayPath, jsonProblem, type Locate, UnreadableFile, within, YamlFile } from './source.js';
import { transformAt } from './transforms.js';

// ProviderOptions (spec §1.3). Any other key is ignored by promptfoo, so only a near miss of one of
// these is worth an error.
const PROVIDER_KEYS = ['id', 'label', 'config', 'prompts', 'transform', 'delay', 'env', 'inputs'];

/**
 * The id the user probably meant. Fixed ids (`echo`) are compared whole; for a shape with a
 * placeholder (`openai:chat:<model>`) only the part before the model is, so `opnai:gpt-4o` finds
 * `openai:gpt-4o` while a model name never makes an unrelated provider look close.
 */
function likelyProviderId(id: string): string | undefined {
  const shapes = providerPatterns().flatMap((pattern) => pattern.split('|').map((s) => s.trim()));
  const fixed = closest(
    id,
    shapes.filter((shape) => !shape.includes('<')),
  );
  if (fixed !== undefined) return fixed;
  const cut = id.lastIndexOf(':') + 1;
  if (cut === 0) return undefined;
  const prefixes = shapes
    .filter((shape) => shape.includes('<'))
    .map((shape) => shape.slice(0, shape.indexOf('<')));
  const prefix = closest(id.slice(0, cut), prefixes);
  const candidate = prefix === undefined ? undefined : prefix + id.slice(cut);
  return candidate !== undefined && candidate !== id && isKnownProviderId(candidate) ? candidate : undefined;
}

/** The "unknown provider" message, naming the shapes assay accepts. */
export function unknownProviderMessage(id: string): string {
  if (/^file:\/\/.*\.(?:go|rb)(?::\w+)?$/.test(id)) {
    return notYet(`custom provider "${id}"`);
  }
  if (/^(?:openai|anthropic|ollama)$/.test(id)) {
    // promptfoo 0.123.1 refuses a bare family name too ("Could not identify provider").
    return `unknown provider "${id}": name a model, as promptfoo requires too (for example "${id}:<model>")`;
  }
  const likely = likelyProviderId(id);
  const hint = likely ? ` (did you mean "${likely}"?)` : '';
  return `unknown provider "${id}"${hint}; assay supports: ${providerPatterns().join(', ')}`;
}

/** Whether a config URL is one a provider can call: http(s) with a host. */
function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Checks the endpoint settings of a provider config, so `assay validate` reports a bad URL where
 * it was written (the provider itself refuses it too, but only when it is created). An empty
 * value means "not set" to the provider. One still holding `{{ env.X }}` (X unset here) is only a
 * warning: validation may run where the variable is not set, and the run may have it.
 */
function checkEndpoint(ctx: LoadContext, config: Record<string, unknown>, at: Locate): void {
  const settings: [string, string, (text: string) => string][] = [
    ['apiBaseUrl', 'an http(s) URL', (text) => text],
    ['apiHost', 'a host name', (text) => (/^https?:\/\//.test(text) ? text : `https://${text}`)],
  ];
  for (const [key, wanted, asUrl] of settings) {
    const value = config[key];
    if (value === undefined || value === null || value === '') continue;
    const where = at(['config', key]);
    const text = typeof value === 'string' ? value.trim() : '';
    if (text.includes('{{')) {
      warnAt(ctx, where, `provider \`config.${key}\` is ${brief(value)}: its variable is not set here`);
    } else if (!isHttpUrl(asUrl(text))) {
      errorAt(ctx, where, `provider \`config.${key}\` must be ${wanted}, got ${brief(value)}`);
    }
  }
}

/**
 * Checks an http provider's config where it was written, so `assay validate` reports what the
 * provider would refuse when built: no URL, no body for a method that sends one, a code file
 * (`transformRequest`, `transformResponse`, `validateStatus`, …) that does not exist (read now, so
 * it joins the suite's hash).
 */
function checkHttp(ctx: LoadContext, id: string, config: Record<string, unknown>, at: Locate): void {
  const raw = typeof config.request === 'string';
  if (!raw && !/^https?:\/\//.test(id) && (typeof config.url !== 'string' || config.url === ''))
    errorAt(ctx, at(['config']), `provider "${id}": set \`config.url\` (or a raw \`config.request\`)`);
  const noBody = config.body === undefined || config.body === null || config.body === '';
  if (!raw && noBody && config.method !== 'GET')
    errorAt(
      ctx,
      at(['config']),
      `provider "${id}": expected a config containing {body} (or method: GET, or a raw request)`,
    );
  for (const key of ['transformRequest', 'transformResponse', 'responseParser', 'validateStatus']) {
    const value = config[key];
    if (typeof value !== 'string' || !value.startsWith('file://')) continue;
    const rest = value.slice('file://'.length);
    const colon = rest.lastIndexOf(':');
    const path =
      colon > 1 && /\.(?:[cm]?[jt]s|[jt]sx)$/i.test(rest.slice(0, colon)) ? rest.slice(0, colon) : rest;
    try {
      ctx.files.readBytes(ctx.files.resolve(path));
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      errorAt(ctx, at(['config', key]), `provider "${id}" \`${key}\` ${value}: ${err.message}`);
    }
  }
}

function checkId(ctx: LoadContext, id: unknown, where: ReturnType<Locate>): id is string {
  if (typeof id !== 'string' || id === '') {
    errorAt(ctx, where, 'a provider needs a non-empty string `id`');
    return false;
  }
  if (!isKnownProviderId(id)) {
    errorAt(ctx, where, unknownProviderMessage(id));
    return false;
  }
  const script = scriptProviderRef(id);
  if (script) {
    // The provider's code is part of the suite: read now (so a missing file is a load error) and
    // hashed with the rest, so a resumed run notices an edited provider.
    try {
      ctx.files.readBytes(ctx.files.resolve(script.path));
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      errorAt(ctx, where, `provider "${id}": ${err.message}`);
      return false;
    }
  }
  return true;
}

function fromOptions(
  ctx: LoadContext,
  options: Record<string, unknown>,
  id: unknown,
  at: Locate,
  idWhere: ReturnType<Locate>,
): ProviderSpec | undefined {
  const idOk = checkId(ctx, id, idWhere);
  let transform: string | undefined;
  for (const key of Object.keys(options)) {
    if (key === 'transform') {
      const code =
        options.transform === undefined || options.transform === null
          ? undefined
          : transformAt(ctx, options.transform, at([key]), 'provider `transform`');
      if (code !== undefined) transform = code;
    } else if (key === 'inputs') {
      warnAt(ctx, at([key]), 'provider `inputs` (red-team multi-input targets) is ignored by assay');
    } else if (!PROVIDER_KEYS.includes(key)) {
      const hint = didYouMean(key, PROVIDER_KEYS);
      if (hint) errorAt(ctx, at([key], true), `unknown provider field "${key}"${hint}`);
      else warnAt(ctx, at([key], true), `unknown provider field "${key}" ignored`);
    }
  }
  const spec: ProviderSpec = { id: typeof id === 'string' ? id : '', source: idWhere };
  if (transform !== undefined) spec.transform = transform;
  if (options.label !== undefined) {
    if (typeof options.label === 'string') spec.label = options.label;
    else errorAt(ctx, at(['label']), 'provider `label` must be a string');
  }
  if (options.delay !== undefined && options.delay !== null) {
    const delay = typeof options.delay === 'string' ? Number(options.delay) : options.delay;
    if (typeof delay === 'number' && Number.isInteger(delay) && delay >= 0) {
      if (delay > 0) spec.delayMs = delay;
    } else errorAt(ctx, at(['delay']), 'provider `delay` must be a whole number of milliseconds ≥ 0');
  }
  if (options.env !== undefined && options.env !== null) {
    const env = options.env;
    if (
      isRecord(env) &&
      Object.values(env).every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    ) {
      spec.env = Object.fromEntries(
        Object.entries(env)
          .filter(([, v]) => v !== null)
          .map(([k, v]) => [k, String(v)]),
      );
    } else errorAt(ctx, at(['env']), 'provider `env` must be a mapping of names to text values');
  }
  if (options.config !== undefined && options.config !== null) {
    if (isRecord(options.config)) {
      spec.config = options.config;
      checkEndpoint(ctx, options.config, at);
      if (typeof id === 'string' && isHttpProviderId(id)) checkHttp(ctx, id, options.config, at);
    } else errorAt(ctx, at(['config']), 'provider `config` must be a mapping');
  }
  if (options.prompts !== undefined) {
    const prompts = typeof options.prompts === 'string' ? [options.prompts] : options.prompts;
    if (Array.isArray(prompts) && prompts.every((p) => typeof p === 'string')) spec.prompts = prompts;
    else errorAt(ctx, at(['prompts']), 'provider `prompts` must be a list of prompt labels or ids');
  }
  return idOk ? spec : undefined;
}

function fromEntry(
  ctx: LoadContext,
  entry: unknown,
  at: Locate,
  yaml: YamlFile | undefined,
  path: (string | number)[],
): ProviderSpec[] {
  if (typeof entry === 'string') {
    if (entry.startsWith('file://') && /\.(ya?ml|json)$/.test(entry)) return fromFile(ctx, entry, at());
    if (!checkId(ctx, entry, at())) return [];
    // `python:x.py` runs under promptfoo's name for it, `python:x.py:default`.
    const named = pythonProviderName(entry);
    return [
      named && named !== entry ? { id: named, kind: entry, source: at() } : { id: entry, source: at() },
    ];
  }
  if (!isRecord(entry)) {
    errorAt(ctx, at(), 'a provider must be an id string, an {id, config} mapping, or a file:// reference');
    return [];
  }
  if (isRefObject(entry)) return [];
  if (entry.id !== undefined) {
    const spec = fromOptions(ctx, entry, entry.id, at, at(['id']));
    return spec ? [spec] : [];
  }
  const keys = Object.keys(entry);
  if (keys.length === 1 && (isRecord(entry[keys[0]]) || entry[keys[0]] === null)) {
    // Map form: the key is the provider to build; an inner `id` is only the name it runs under
    // (promptfoo loads the key's provider with `{...inner, id}`, so its results show the inner id).
    const key = keys[0];
    const inner = (entry[key] ?? {}) as Record<string, unknown>;
    const innerAt = within(at, [key]);
    const keyWhere = yaml?.locateKey([...path, key]) ?? at();
    const named = typeof inner.id === 'string' && inner.id !== '' && inner.id !== key;
    const spec = fromOptions(ctx, inner, key, innerAt, keyWhere);
    if (spec && named) {
      spec.kind = key;
      spec.id = inner.id as string;
    }
    return spec ? [spec] : [];
  }
  errorAt(ctx, at(), 'a provider mapping needs an `id` (or must be a single `<id>: {config…}` entry)');
  return [];
}

function fromFile(ctx: LoadContext, ref: string, where: ReturnType<Locate>): ProviderSpec[] {
  const abs = ctx.files.resolve(ref);
  let text: string;
  try {
    text = ctx.files.read(abs);
  } catch (err) {
    if (err instanceof UnreadableFile) errorAt(ctx, where, `provider file ${ref}: ${err.message}`);
    else throw err;
    return [];
  }
  const json = extname(abs).toLowerCase() === '.json';
  const problem = json ? jsonProblem(text) : undefined;
  if (problem) {
    const { message, ...pos } = problem;
    errorAt(ctx, { file: displayPath(abs), ...pos }, message);
    return [];
  }
  const yaml = new YamlFile(displayPath(abs), text, { json });
  yaml.reportErrors(ctx.bag);
  reportJsonRefs(ctx, yaml);
  if (yaml.unreadable) return [];
  const value = yaml.value;
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((entry, i) => {
    const path = Array.isArray(value) ? [i] : [];
    return fromEntry(ctx, entry, yaml.locator(path), yaml, path);
  });
}

/**
 * Reads `providers`/`targets` into provider specs, reporting unknown ids, duplicates (by
 * label ?? id) and an empty list.
 */
export function loadProviders(
  ctx: LoadContext,
  config: Record<string, unknown>,
  yaml: YamlFile,
): ProviderSpec[] {
  let key = 'providers';
  if (config.providers !== undefined && config.targets !== undefined) {
    warnAt(ctx, yaml.locateKey(['targets']), 'both `providers` and `targets` are set; using `providers`');
  } else if (config.providers === undefined && config.targets !== undefined) key = 'targets';
  const value = config[key];
  const specs: ProviderSpec[] = [];
  // A `$ref` has been refused where the config was parsed; "no providers" would only echo it.
  if (isRefObject(value)) return specs;
  if (typeof value === 'string') {
    specs.push(...fromEntry(ctx, value, yaml.locator([key]), yaml, [key]));
  } else if (Array.isArray(value)) {
    value.forEach((entry, i) => {
      specs.push(...fromEntry(ctx, entry, yaml.locator([key, i]), yaml, [key, i]));
    });
  } else if (value !== undefined && value !== null) {
    errorAt(ctx, yaml.locate([key]), '`providers` must be a provider id or a list of providers');
    return [];
  }
  if (
    (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) &&
    specs.length === 0
  ) {
    errorAt(
      ctx,
      value === undefined ? { file: yaml.file } : yaml.locate([key]),
      'no providers: set `providers` to at least one provider id (for example `echo`)',
    );
  }
  const seen = new Set<string>();
  for (const spec of specs) {
    const name = spec.label ?? spec.id;
    if (seen.has(name)) {
      errorAt(
        ctx,
        spec.source ?? { file: yaml.file },
        `two providers share the name "${name}"; give one of them a distinct \`label\``,
      );
    }
    seen.add(name);
  }
  return specs;
}
