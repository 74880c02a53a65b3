// Grader settings of promptfoo assertions and tests (§1.8, §5.4): the grader `provider` (an id,
// `{id, config}`, or a `{text, embedding}` map), `rubricPrompt`, and the model-graded types assay
// refuses, each with its reason.
import type { ProviderSpec } from '../../core/types.js';
import { isKnownProviderId } from '../../providers/registry.js';
import { brief, errorAt, isRecord, type LoadContext, notYet, warnAt } from './context.js';
import { unknownProviderMessage } from './providers.js';
import { UnreadableFile, type Where } from './source.js';

/** A `file://` path naming a script (optionally `:function`). */
export const SCRIPT_FILE = /\.(?:[cm]?[jt]sx?|py|rb)(?::[\w.]+)?$/;

/** One provider entry of a grader value: an id string or `{id, label, config}`. */
function oneProvider(value: unknown): ProviderSpec | undefined {
  if (typeof value === 'string') return { id: value };
  if (!isRecord(value) || typeof value.id !== 'string') return undefined;
  return {
    id: value.id,
    ...(typeof value.label === 'string' ? { label: value.label } : {}),
    ...(isRecord(value.config) ? { config: value.config } : {}),
  };
}

/**
 * Reads a grader `provider` value (§1.8): an id string, `{id, label, config}`, or a provider map
 * `{text: …, embedding: …}` whose text provider answers prompts and whose embedding provider embeds.
 */
/** The keys of a provider entry besides `id` (a mapping of only these names no provider). */
const GRADER_OPTION_KEYS = new Set(['config', 'label', 'env', 'transform', 'delay', 'prompts']);

export function graderSpec(ctx: LoadContext, value: unknown, where: Where): ProviderSpec | undefined {
  let spec = oneProvider(value);
  if (!spec && isRecord(value) && (value.text !== undefined || value.embedding !== undefined)) {
    const other = Object.keys(value).filter((k) => k !== 'text' && k !== 'embedding');
    if (other.length > 0) {
      errorAt(
        ctx,
        where,
        `a grader provider map may only have \`text\` and \`embedding\` providers, got ${other.map((k) => `\`${k}\``).join(', ')}${other.includes('classification') ? ' (classification providers are not supported by assay)' : ''}`,
      );
      return undefined;
    }
    const text = value.text === undefined ? undefined : oneProvider(value.text);
    const embedding = value.embedding === undefined ? undefined : oneProvider(value.embedding);
    if ((value.text !== undefined && !text) || (value.embedding !== undefined && !embedding)) {
      errorAt(
        ctx,
        where,
        `each provider in a grader provider map must be an id or {id, config}, got ${brief(value)}`,
      );
      return undefined;
    }
    // Only an embedding provider: it is asked for text too, and says it cannot answer (as in promptfoo).
    spec = text
      ? { ...text, ...(embedding ? { embedding } : {}) }
      : { ...(embedding as ProviderSpec), embedding };
  }
  if (
    !spec &&
    isRecord(value) &&
    value.id === undefined &&
    Object.keys(value).every((k) => GRADER_OPTION_KEYS.has(k))
  ) {
    // `{config: …}` with no id: promptfoo loads the config and fails only if a graded assertion calls it.
    warnAt(
      ctx,
      where,
      'a grader `provider` without an `id` is ignored (name one with `id:` for graded assertions)',
    );
    return undefined;
  }
  if (!spec) {
    errorAt(
      ctx,
      where,
      `a grader \`provider\` must be a provider id, {id, config} or {text: …, embedding: …}, got ${brief(value)}`,
    );
    return undefined;
  }
  for (const id of [spec.id, spec.embedding?.id]) {
    if (id !== undefined && !isKnownProviderId(id)) {
      errorAt(ctx, where, unknownProviderMessage(id));
      return undefined;
    }
  }
  if (spec.embedding) spec.embedding = { ...spec.embedding, source: where };
  return { ...spec, source: where };
}

/**
 * Reads a `rubricPrompt` (§5.4): text, a chat array or a mapping (kept as written), or a `file://`
 * reference whose text is read now (it is rendered with the vars when grading). Script files that
 * compute a prompt are refused.
 */
export function rubricPrompt(
  ctx: LoadContext,
  value: unknown,
  where: Where,
): { ok: boolean; value?: unknown } {
  if (typeof value !== 'string' || !value.startsWith('file://')) return { ok: true, value };
  const path = value.slice('file://'.length);
  if (SCRIPT_FILE.test(path)) {
    errorAt(ctx, where, notYet(`a \`rubricPrompt\` computed by a script (${value})`));
    return { ok: false };
  }
  const abs = ctx.files.resolve(path);
  try {
    return { ok: true, value: ctx.files.read(abs) };
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    errorAt(ctx, where, `rubricPrompt file ${ctx.files.relative(abs)}: ${err.message}`);
    return { ok: false };
  }
}
