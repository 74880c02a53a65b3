// Where providers are built, what of them is a credential is declared to the run's secrets
// (core/secrets.ts), whatever the kind: the secret-looking fields of the config, the credential
// query parameters of every URL it was given (the id itself for promptfoo's `http://host/api?token=…`,
// `config.url`, a base URL), its `env`, and what the built provider says it was given.
import { configTexts, isSecretFieldName } from '../core/redact.js';
import { maskUrlCredentials, type Secrets } from '../core/secrets.js';
import type { ProviderSpec } from '../core/types.js';
import type { Provider } from './types.js';

/** How a provider is named in a warning: its label or id, any credential in it masked. */
export function providerName(spec: ProviderSpec): string {
  return `provider "${maskUrlCredentials(spec.label ?? spec.id)}"`;
}

/**
 * Declares a provider spec's credentials to `secrets`: the secret-looking fields of its config,
 * the credentials in its id, label and the URLs of its config, its `env`'s secrets. Done before
 * the provider is built, so an error naming it is redacted too.
 */
export function declareProviderSecrets(secrets: Secrets, spec: ProviderSpec): void {
  const name = providerName(spec);
  secrets.addUrl(spec.id, name);
  if (spec.label !== undefined) secrets.addUrl(spec.label, name);
  if (spec.kind !== undefined) secrets.addUrl(spec.kind, name);
  for (const { path, field, text } of configTexts(spec.config)) {
    // A field named like a secret is a guess (`tokenizer`), not a declaration: no warning.
    if (isSecretFieldName(field)) secrets.add(text);
    if (text.includes('://')) secrets.addUrl(text, `config.${path} of ${name}`);
  }
  if (spec.env) secrets.addEnv(spec.env);
}

/**
 * Declares what a built provider says it was given as credentials (`Provider.credentials`), each
 * named for the warning a too-short one gets: the environment variable that holds it, else the
 * config field, else the provider.
 */
export function declareCredentials(
  secrets: Secrets,
  spec: ProviderSpec,
  env: Record<string, string | undefined>,
  provider: Provider,
): void {
  if (!provider.credentials) return;
  const name = providerName(spec);
  const texts = configTexts(spec.config);
  const allEnv = spec.env ? { ...env, ...spec.env } : env;
  for (const credential of provider.credentials) {
    const variable = Object.keys(allEnv).find((k) => allEnv[k] === credential);
    const field = texts.find((t) => t.text === credential) ?? texts.find((t) => t.text.includes(credential));
    secrets.add(
      credential,
      variable !== undefined
        ? `${variable} (the key of ${name})`
        : field !== undefined
          ? `config.${field.path} of ${name}`
          : `a credential of ${name}`,
    );
  }
}
