// promptfoo renders `{{ env.NAME }}` throughout a config at load time and leaves every other
// template for run time. A reference to an unset variable is kept verbatim (unless it has a
// filter such as `default`), so it can still be supplied later.
import { renderString } from '../../template/render.js';

type Env = Record<string, string | undefined>;

const TEMPLATE = /\{\{(?:[^}]|\}(?!\}))*\}\}/g;
const ENV_REFERENCE = /env\.(\w+)|env\[['"]([^'"]+)['"]\]/;

function renderEnvInString(text: string, env: Env): string {
  if (!text.includes('{{')) return text;
  return text.replace(TEMPLATE, (match) => {
    if (!/\benv\.|env\[/.test(match)) return match;
    const ref = ENV_REFERENCE.exec(match);
    const name = ref?.[1] ?? ref?.[2];
    const hasFilter = match.includes('|');
    if (!hasFilter && (name === undefined || env[name] === undefined)) return match;
    try {
      return renderString(match, { env }, env);
    } catch {
      return match;
    }
  });
}

/** Renders only the `{{ env.… }}` templates in every string of a value (keys untouched). */
export function renderEnvTemplates<T>(value: T, env: Env): T {
  if (typeof value === 'string') return renderEnvInString(value, env) as T;
  if (Array.isArray(value)) return value.map((item) => renderEnvTemplates(item, env)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = renderEnvTemplates(v, env);
    return out as T;
  }
  return value;
}
