// promptfoo's PROMPTFOO_* switches (spec §9) that change loading, running or the exit code. Those
// assay honours are read where they apply; the rest are named in a warning when set, so a run
// never silently differs from promptfoo's.
import type { RunDefaults } from '../../core/types.js';
import { type LoadContext, warnAt } from './context.js';

/** promptfoo's reading of a boolean environment variable. */
export function envFlag(env: Record<string, string | undefined>, name: string): boolean {
  const value = env[name]?.trim().toLowerCase();
  return value === 'true' || value === '1' || value === 'yes' || value === 'on';
}

// Set, these change what promptfoo does in ways assay does not reproduce.
const NOT_HONOURED: Record<string, string> = {
  PROMPTFOO_DISABLE_TEMPLATING: 'prompts and assertion values are still rendered',
  PROMPTFOO_DISABLE_JSON_AUTOESCAPE: 'JSON prompts are still rendered value by value',
  PROMPTFOO_DISABLE_TEMPLATE_ENV_VARS: 'templates still see `env`',
  PROMPTFOO_DISABLE_OBJECT_STRINGIFY: 'grader templates still see objects as JSON text',
  PROMPTFOO_SHORT_CIRCUIT_TEST_FAILURES: 'every assertion of a test is still run and scored',
  PROMPTFOO_STRIP_PROMPT_TEXT: 'results files still hold the prompt text',
};

/** Warns about each PROMPTFOO_* switch that is set but not honoured. */
export function warnUnhonouredEnv(ctx: LoadContext, file: string): void {
  for (const [name, effect] of Object.entries(NOT_HONOURED)) {
    if (envFlag(ctx.env, name))
      warnAt(ctx, { file }, `${name} is set, but assay does not honour it: ${effect}`);
  }
}

/**
 * Run defaults from the environment: `PROMPTFOO_DELAY_MS` (the wait when no provider or run delay
 * is set) and promptfoo's exit-code rule (`PROMPTFOO_PASS_RATE_THRESHOLD`,
 * `PROMPTFOO_FAILED_TEST_EXIT_CODE`), honoured only when one of them is set.
 */
export function envRunDefaults(ctx: LoadContext, file: string): RunDefaults {
  const out: RunDefaults = {};
  const delay = ctx.env.PROMPTFOO_DELAY_MS;
  if (delay !== undefined && delay.trim() !== '') {
    const n = Number(delay);
    if (Number.isInteger(n) && n >= 0) {
      if (n > 0) out.fallbackDelayMs = n;
    } else
      warnAt(ctx, { file }, `PROMPTFOO_DELAY_MS=${delay} is not a whole number of milliseconds; ignored`);
  }
  const threshold = ctx.env.PROMPTFOO_PASS_RATE_THRESHOLD;
  const code = ctx.env.PROMPTFOO_FAILED_TEST_EXIT_CODE;
  if ((threshold !== undefined && threshold !== '') || (code !== undefined && code !== '')) {
    // promptfoo: a threshold that is not a number means 100; an exit code that is not an integer means 100.
    const t = threshold !== undefined && threshold !== '' ? Number(threshold) : 100;
    const c = code !== undefined && code !== '' ? Number(code) : 100;
    out.passRatePercent = Number.isFinite(t) ? t : 100;
    out.failedExitCode = Number.isSafeInteger(c) && c >= 0 && c <= 255 ? c : 100;
  }
  return out;
}
