// Builds a provider for a preset id (presets.ts) on the OpenAI wire mapping and the HTTP skeleton.
import type { ProviderSpec } from '../core/types.js';
import { createHttpApiProvider } from './http-api.js';
import { type Config, nonEmpty } from './http-kit.js';
import { openAiApi } from './openai.js';
import { BY_PREFIX, presetOf } from './presets.js';
import type { Provider, ProviderContext } from './types.js';

/** A preset provider making one attempt per call (the registry wraps it in the call policy). */
export function createPresetAttempts(spec: ProviderSpec, ctx: ProviderContext, now?: () => number): Provider {
  const named = presetOf(spec.id);
  const prefix = spec.id.split(':')[0];
  const preset = named?.preset ?? BY_PREFIX.get(prefix);
  if (!preset) throw new Error(`${spec.id} names no OpenAI-compatible service`);
  const config: Config = spec.config ?? {};
  const apiHost = nonEmpty(config.apiHost);
  const region = nonEmpty(config.region);
  const configBase =
    nonEmpty(config.apiBaseUrl) ??
    (apiHost ? `https://${apiHost}/v1` : undefined) ??
    (region && preset.regionBaseUrl ? preset.regionBaseUrl(region) : undefined);
  const defaults = { ...preset.defaults };
  if (preset.prefix === 'localai') {
    const t = Number(ctx.env.LOCALAI_TEMPERATURE);
    if (ctx.env.LOCALAI_TEMPERATURE && Number.isFinite(t)) defaults.temperature = t;
  }
  for (const name of preset.configToBody ?? []) if (config[name] !== undefined) defaults[name] = config[name];
  // The service's own hosts, where a call without a key cannot succeed: its base URL's, and its
  // regional one (xAI's `region`).
  const hosts = [preset.baseUrl, region && preset.regionBaseUrl ? preset.regionBaseUrl(region) : undefined]
    .filter((url): url is string => url !== undefined && URL.canParse(url))
    .map((url) => new URL(url).hostname);
  return createHttpApiProvider(
    spec,
    ctx,
    now,
    openAiApi(spec, named?.model ?? '', named?.embedding ?? false, {
      service: preset.service,
      idForm: `${preset.prefix}:<model>`,
      baseUrl: { config: configBase, env: preset.baseUrlEnv, default: preset.baseUrl },
      key: preset.keyEnv
        ? {
            env: [preset.keyEnv],
            send: { kind: 'bearer' },
            required: hosts,
            hint: `or set ${preset.baseUrlEnv[0]} (or the provider's apiBaseUrl) to use another server`,
          }
        : { env: [], send: nonEmpty(config.apiKey) ? { kind: 'bearer' } : { kind: 'none' } },
      extraParams: preset.extraParams,
      defaults,
      adjust: preset.adjust,
      dialect: preset.dialect,
      reasoningFields: preset.reasoningFields,
    }),
  );
}
