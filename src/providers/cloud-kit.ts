/**
 * What the cloud providers (Google AI Studio, Vertex, Hugging Face, Bedrock) add around the HTTP
 * provider skeleton (http-api.ts): every error names the service, credentials learned while
 * running (an access token) join the declared ones and are redacted like them, and a service that
 * refuses a key with a status other than 401/403 (Gemini: 400 `API_KEY_INVALID`) is treated as a
 * refused key (the run stops) all the same. Answers are redacted with the live credentials too.
 */
import type { InputError } from '../core/errors.js';
import type { ProviderSpec } from '../core/types.js';
import { configError, redactor } from './http-kit.js';
import type { AttemptFailure, Provider, ProviderResponse } from './types.js';

export interface CloudWrap {
  /** The service, prefixed to every error ("Google AI Studio: …"). */
  service: string;
  /** The live list of credentials (more may be pushed while running); every error is redacted with it. */
  credentials: string[];
  /** A failed call whose error means the credential was refused: the message to give (fatal). */
  refusedKey?(error: string): string | undefined;
}

/** The provider with its errors named, redacted with the live credentials, and refused keys made fatal. */
export function namedCloudProvider(inner: Provider, wrap: CloudWrap): Provider {
  const prefix = `${wrap.service}: `;
  // Sees credentials pushed later (an access token) through the live array.
  const scrub = redactor(wrap.credentials);
  const name = (text: string): string => {
    const clean = scrub(text);
    return clean.startsWith(prefix) ? clean : `${prefix}${clean}`;
  };
  const named = (failure: AttemptFailure | undefined): AttemptFailure | undefined => {
    if (!failure?.explain) return failure;
    const explain = failure.explain;
    return { ...failure, explain: (attempts) => name(explain(attempts)) };
  };
  // Credentials pushed later (an access token) are seen through this live array.
  for (const c of inner.credentials ?? []) if (!wrap.credentials.includes(c)) wrap.credentials.push(c);
  const provider: Provider = {
    ...inner,
    credentials: wrap.credentials,
    async call(request) {
      const res: ProviderResponse = await inner.call(request);
      // A server that quotes the request (an echoing proxy) must not carry a credential learned
      // while running (an access token) past the provider: the run's redaction knows only those
      // declared when it started.
      if (res.output && wrap.credentials.length > 0) res.output = scrub(res.output);
      if (res.error === undefined) return res;
      // The skeleton names the service in most errors already: the rules read the error without it.
      const bare = res.error.startsWith(prefix) ? res.error.slice(prefix.length) : res.error;
      const refused = wrap.refusedKey?.(bare);
      if (refused !== undefined) {
        const { failure: _transient, ...rest } = res;
        return { ...rest, error: name(refused), fatal: true };
      }
      const out: ProviderResponse = { ...res, error: name(res.error) };
      if (res.failure) out.failure = named(res.failure);
      return out;
    },
  };
  if (inner.embed) {
    const embed = inner.embed.bind(inner);
    provider.embed = async (request) => {
      const res = await embed(request);
      return res.error === undefined ? res : { ...res, error: name(res.error), failure: named(res.failure) };
    };
  }
  return provider;
}

/** A config mistake, refused before anything runs (exit 2), naming the service. */
export function cloudConfigError(spec: ProviderSpec, service: string, message: string): InputError {
  return configError(spec, `${service}: ${message}`);
}

/** The base URL of a host setting: a host name (made https://), or a URL as given (an assay extension, for local servers). */
export function hostBase(host: string): string {
  return (/^https?:\/\//i.test(host) ? host : `https://${host}`).replace(/\/+$/, '');
}
