// Nunjucks rendering with promptfoo's semantics (undefined → '', no autoescape, `load` filter,
// `env` global). nunjucks is loaded on first use so start-up does not pay for it, and compiled
// templates are cached because compiling dominates render time on large suites.
import { createRequire } from 'node:module';
import type { Environment, Template } from 'nunjucks';
import { KEYWORDS, promptfooTemplateVariables } from './references.js';

type Nunjucks = typeof import('nunjucks');
type Vars = Record<string, unknown>;
type Env = Record<string, string | undefined>;

/** A template that could not be compiled or rendered. */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/**
 * Where a template is rendered. promptfoo gives its `nunjucksFilters` to the prompt's environment
 * only (a text prompt and the vars rendered into it); assertion values, metric names, JSON prompt
 * leaves and grader rubrics are rendered by environments without them. assay keeps the same two.
 */
export type TemplateScope = 'plain' | 'prompt';

const CACHE_LIMIT = 2000;
let nunjucks: Nunjucks | undefined;
const environments: Partial<Record<TemplateScope, Environment>> = {};
const compiled: Record<TemplateScope, Map<string, Template>> = { plain: new Map(), prompt: new Map() };

function engine(scope: TemplateScope = 'plain'): { nj: Nunjucks; env: Environment } {
  nunjucks ??= createRequire(import.meta.url)('nunjucks') as Nunjucks;
  let env = environments[scope];
  if (!env) {
    env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: false });
    env.addFilter('load', (text: string) => JSON.parse(text));
    environments[scope] = env;
  }
  return { nj: nunjucks, env };
}

function compile(template: string, scope: TemplateScope = 'plain'): Template {
  const cache = compiled[scope];
  const hit = cache.get(template);
  if (hit) {
    // Re-insert so the Map's insertion order doubles as least-recently-used order.
    cache.delete(template);
    cache.set(template, hit);
    return hit;
  }
  const { nj, env } = engine(scope);
  let result: Template;
  try {
    result = new nj.Template(template, env, undefined, true);
  } catch (err) {
    throw new TemplateError(cleanMessage(err));
  }
  cache.set(template, result);
  if (cache.size > CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return result;
}

function cleanMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const cleaned = text
    .replace(/^\(unknown path\)\s*/, '')
    .replace(/^(?:\w*Error: )+/, '')
    .trim();
  return `template error: ${cleaned}`;
}

/** The parts of nunjucks' undocumented parser API the load-time check reads. */
interface AstNode {
  findAll(type: unknown): AstNode[];
  name?: { value?: unknown };
  right?: { value?: unknown; name?: { value?: unknown } };
}
interface NunjucksInternals {
  parser: { parse(src: string, extensions: unknown, opts: unknown): AstNode };
  nodes: { Filter: unknown; FilterAsync: unknown; Is: unknown };
}
interface EnvironmentInternals {
  extensionsList: unknown;
  opts: unknown;
  getTest(name: string): unknown;
}

/**
 * Names the first filter or test a template uses that the environment lacks. Compiling cannot
 * tell: nunjucks looks filters up only when it renders, so an unknown one would fail every job.
 */
function unknownName(template: string, scope: TemplateScope): string | undefined {
  const { nj, env } = engine(scope);
  const internals = nj as unknown as NunjucksInternals;
  const envInternals = env as unknown as EnvironmentInternals;
  const ast = internals.parser.parse(template, envInternals.extensionsList, envInternals.opts);
  const has = (lookup: () => unknown): boolean => {
    try {
      lookup();
      return true;
    } catch {
      return false;
    }
  };
  for (const node of [...ast.findAll(internals.nodes.Filter), ...ast.findAll(internals.nodes.FilterAsync)]) {
    const name = node.name?.value;
    if (typeof name === 'string' && !has(() => env.getFilter(name))) return `unknown filter "${name}"`;
  }
  for (const node of ast.findAll(internals.nodes.Is)) {
    const name = node.right?.value ?? node.right?.name?.value;
    if (typeof name === 'string' && !has(() => envInternals.getTest(name))) return `unknown test "${name}"`;
  }
  return undefined;
}

const checked: Record<TemplateScope, Map<string, string | undefined>> = {
  plain: new Map(),
  prompt: new Map(),
};

/**
 * Adds a filter the prompt templates can use from now on (promptfoo's `nunjucksFilters`; see
 * {@link TemplateScope}). The environment is shared by the process, so the last filter added
 * under a name is the one used.
 */
export function addTemplateFilter(name: string, filter: (...args: unknown[]) => unknown): void {
  engine('prompt').env.addFilter(name, filter);
  // A text checked before the filter existed was "unknown filter"; check again when asked.
  checked.prompt.clear();
}

/**
 * Compiles a template the way {@link renderString} will (through the same cache) and returns what
 * is wrong with it: a syntax error or an unknown filter, as one line. Undefined when it is fine.
 * Suites repeat a few templates many times, so each distinct text is checked once.
 */
export function checkTemplate(text: string, scope: TemplateScope = 'plain'): string | undefined {
  // Text and `{{ name }}` references alone always compile (and render without Nunjucks).
  if (!hasTemplateSyntax(text) || referencesOf(text) !== null) return undefined;
  const done = checked[scope];
  if (done.has(text)) return done.get(text);
  let problem: string | undefined;
  try {
    compile(text, scope);
    const unknown = unknownName(text, scope);
    if (unknown) problem = `template error: ${unknown}`;
  } catch (err) {
    problem = err instanceof TemplateError ? err.message : cleanMessage(err);
  }
  problem = problem?.replace(/\s*\n\s*/g, ' ');
  if (done.size >= CACHE_LIMIT) done.delete(done.keys().next().value as string);
  done.set(text, problem);
  return problem;
}

/**
 * Checks a prompt template as {@link renderPrompt} will render it: a JSON (chat) prompt leaf by
 * leaf, any other text whole, with a partial tag (`{{` left open) read as literal text.
 */
export function checkPromptTemplate(raw: string): string | undefined {
  const shape = templateShape(raw);
  if (shape.json !== undefined) {
    // renderPrompt renders each string leaf on its own; the first broken one is the problem.
    const leaves: string[] = [];
    collectStrings(shape.json, leaves);
    const problem = leaves.map((leaf) => checkTemplate(leaf)).find((p) => p !== undefined);
    // A failing leaf makes renderPrompt fall back to rendering the whole text; only when that
    // fails too is the prompt broken at run time.
    if (problem === undefined || !shape.hasSyntax || checkTemplate(shape.wrapped, 'prompt') === undefined) {
      return undefined;
    }
    return problem;
  }
  return shape.hasSyntax ? checkTemplate(shape.wrapped, 'prompt') : undefined;
}

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) collectStrings(v, out);
}

/** Whether a string contains any Nunjucks syntax (otherwise rendering is the identity). */
export function hasTemplateSyntax(text: string): boolean {
  // One pass over the text (three `includes` made three where there is no syntax, the common case).
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next === 123 || next === 37 || next === 35) return true; // {{ {% {#
  }
  return false;
}

/**
 * Renders a Nunjucks template against vars. Undefined vars render as ''; `env` (default: the
 * process environment) is visible as the global `env` unless a var of that name shadows it.
 */
export function renderString(
  template: string,
  vars: Vars,
  env?: Env,
  scope: TemplateScope = 'plain',
): string {
  if (!hasTemplateSyntax(template)) return template;
  const simple = substituted(template, vars);
  if (simple !== undefined) return simple;
  const compiledTemplate = compile(template, scope);
  // Rendering is synchronous, so setting the global just before the call cannot race.
  engine(scope).env.addGlobal('env', env ?? process.env);
  try {
    return compiledTemplate.render(vars);
  } catch (err) {
    throw new TemplateError(cleanMessage(err));
  }
}

/** A template whose only syntax is `{{ name }}` references: the texts around them and the names. */
interface References {
  texts: string[];
  names: string[];
}

const references = new Map<string, References | null>();
// Nunjucks's lexer skips these five characters only; any other (\v, \f, U+3000, a BOM…) is part
// of the name it looks up.
const REFERENCE = /\{\{[ \n\t\r\u00a0]*([A-Za-z_][A-Za-z0-9_]*)[ \n\t\r\u00a0]*\}\}/g;

/** The references of a template made only of text and `{{ name }}`s; null for any other syntax. */
function referencesOf(template: string): References | null {
  let found = references.get(template);
  if (found !== undefined) return found;
  found = { texts: [], names: [] };
  let last = 0;
  for (const m of template.matchAll(REFERENCE)) {
    found.texts.push(template.slice(last, m.index));
    found.names.push(m[1]);
    last = (m.index as number) + m[0].length;
  }
  found.texts.push(template.slice(last));
  // Anything else that looks like syntax (a tag, a comment, a filter, `{{-`, braces against a
  // reference, a stray `#}` — Nunjucks fails on it: "unexpected end of comment" — a keyword such as
  // `true`, or `__proto__`, which Nunjucks's copy of the vars drops) is Nunjucks's to render.
  if (
    found.texts.some(
      (t, i) =>
        hasTemplateSyntax(t) ||
        t.includes('#}') ||
        (i > 0 && t.startsWith('}')) ||
        (i < found!.names.length && t.endsWith('{')),
    ) ||
    found.names.some((n) => KEYWORDS.has(n) || n === '__proto__')
  )
    found = null;
  if (references.size >= CACHE_LIMIT) references.delete(references.keys().next().value as string);
  references.set(template, found);
  return found;
}

/**
 * A template of `{{ name }}` references rendered by substitution, when every name is a var of its
 * own holding a string or a number: what Nunjucks renders then (the value as text; no autoescape),
 * at a fraction of the cost (≈ 0.3 µs instead of ≈ 4 µs a prompt). Undefined otherwise (a name
 * that is a global, a keyword, unset, or another kind of value): Nunjucks renders it.
 */
function substituted(template: string, vars: Vars): string | undefined {
  const refs = referencesOf(template);
  if (refs === null) return undefined;
  const { texts, names } = refs;
  let out = texts[0];
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (!Object.hasOwn(vars, name)) return undefined;
    const value = vars[name];
    if (typeof value === 'string') out += value;
    else if (typeof value === 'number') out += String(value);
    else return undefined;
    out += texts[i + 1];
  }
  return out;
}

/** Options for {@link renderPrompt}. */
export interface RenderPromptOptions {
  /** Prepended to the raw template before rendering (may itself contain `{{…}}`). */
  prefix?: string;
  /** Appended to the raw template before rendering. */
  suffix?: string;
  env?: Env;
}

const SIMPLE_REFERENCE = /\{\{\s*(\w+)\s*\}\}/;

/**
 * Substitutes `{{name}}` references between string vars textually (first reference per var per
 * pass, up to 5 passes), as promptfoo does before rendering.
 */
function resolveVarReferences(vars: Vars): void {
  for (let pass = 0; pass < 5; pass++) {
    let changed = false;
    for (const key of Object.keys(vars)) {
      const value = vars[key];
      if (typeof value !== 'string') continue;
      const match = SIMPLE_REFERENCE.exec(value);
      if (!match || vars[match[1]] === undefined) continue;
      const replacement = String(vars[match[1]]);
      // A function replacement keeps `$&`-style patterns in var values literal.
      vars[key] = value.replace(match[0], () => replacement);
      changed = true;
    }
    if (!changed) return;
  }
}

/** The tag left open in a template (`{{ name ` with no `}}`), which is rendered as literal text; undefined when none. */
export function openTag(text: string): string | undefined {
  const m = /({%[^%]*$|{{[^}]*$|{#[^#]*$)/m.exec(text);
  if (!m || (/{%\s*raw\s*%}/.test(text) && /{%\s*endraw\s*%}/.test(text))) return undefined;
  return m[1];
}

/** Nunjucks fails on a lone `{{`; promptfoo renders such text verbatim by wrapping it in raw. */
function wrapPartialTags(text: string): string {
  const partial = /({%[^%]*$|{{[^}]*$|{#[^#]*$)/m.test(text);
  const wrapped = /{%\s*raw\s*%}/.test(text) && /{%\s*endraw\s*%}/.test(text);
  return partial && !wrapped ? `{% raw %}${text}{% endraw %}` : text;
}

/**
 * Whether a var value names a var that is not set, by promptfoo's quick scan (not a parse: `{% if
 * true %}` names `true`). Such a value is left as it is instead of being rendered.
 */
function referencesUndefinedVars(template: string, vars: Vars): boolean {
  return promptfooTemplateVariables(template).some((name) => {
    const root = /^([A-Za-z_]\w*)/.exec(name)?.[1];
    return root !== undefined && root !== 'env' && vars[root] === undefined;
  });
}

function renderJsonLeaves(value: unknown, vars: Vars, env: Env | undefined): unknown {
  if (typeof value === 'string') return renderString(value, vars, env);
  if (Array.isArray(value)) return value.map((item) => renderJsonLeaves(item, vars, env));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = renderJsonLeaves(v, vars, env);
    return out;
  }
  return value;
}

/**
 * Renders a prompt template the way promptfoo does: prefix/suffix concatenated first, one
 * trailing newline stripped from string vars, var-in-var references resolved, a JSON template
 * rendered leaf by leaf and re-serialised (so values are escaped), otherwise string vars are
 * rendered as templates first and then the template once.
 */
export function renderPrompt(raw: string, vars: Vars, opts: RenderPromptOptions = {}): string {
  const template = (opts.prefix ?? '') + raw + (opts.suffix ?? '');
  const env = opts.env;
  const prepared: Vars = {};
  let anyTemplateVar = false;
  for (const key in vars) {
    const value = vars[key];
    if (typeof value === 'string') {
      const text = value.endsWith('\n') ? value.slice(0, -1) : value;
      if (!anyTemplateVar && hasTemplateSyntax(text)) anyTemplateVar = true;
      prepared[key] = text;
    } else prepared[key] = value;
  }
  if (anyTemplateVar) resolveVarReferences(prepared);

  const shape = templateShape(template);
  if (shape.json !== undefined) {
    try {
      return JSON.stringify(renderJsonLeaves(shape.json, prepared, env), null, 2);
    } catch {
      // promptfoo falls back to rendering the text when a leaf fails; do the same.
    }
  }
  if (!shape.hasSyntax) return template;

  let renderedVars = prepared;
  if (anyTemplateVar) {
    renderedVars = {};
    for (const [key, value] of Object.entries(prepared)) {
      renderedVars[key] =
        typeof value === 'string' && hasTemplateSyntax(value) && !referencesUndefinedVars(value, prepared)
          ? renderString(wrapPartialTags(value), prepared, env, 'prompt')
          : value;
    }
  }
  return renderString(shape.wrapped, renderedVars, env, 'prompt');
}

interface TemplateShape {
  /** The parsed template when it is JSON (a chat prompt), else undefined. */
  json: unknown;
  hasSyntax: boolean;
  /** The template with partial tags protected. */
  wrapped: string;
}

const shapes = new Map<string, TemplateShape>();

/**
 * What a prompt template is, worked out once per distinct template: every job of a suite shares a
 * handful of templates, and a failed JSON.parse per job (an exception each time) is costly.
 */
function templateShape(template: string): TemplateShape {
  let shape = shapes.get(template);
  if (shape) return shape;
  let json: unknown;
  const first = template.trimStart()[0];
  if (first === '[' || first === '{' || first === '"') {
    try {
      json = JSON.parse(template);
    } catch {
      json = undefined;
    }
  } else if (first !== undefined && /^[-\d]|^(true|false|null)$/.test(template.trim())) {
    try {
      json = JSON.parse(template);
    } catch {
      json = undefined;
    }
  }
  shape = { json, hasSyntax: hasTemplateSyntax(template), wrapped: wrapPartialTags(template) };
  if (shapes.size >= CACHE_LIMIT) shapes.delete(shapes.keys().next().value as string);
  shapes.set(template, shape);
  return shape;
}

/**
 * Renders an assertion's expected value: strings are rendered, string elements of arrays are
 * rendered, everything else (objects, numbers) is returned untouched.
 */
export function renderAssertionValue(value: unknown, vars: Vars, env?: Env): unknown {
  if (typeof value === 'string') return renderString(value, vars, env);
  if (Array.isArray(value)) {
    return value.map((item) => (typeof item === 'string' ? renderString(item, vars, env) : item));
  }
  return value;
}

/** Number of compiled templates held (for tests and diagnostics). */
export function templateCacheSize(): number {
  return compiled.plain.size + compiled.prompt.size;
}
