// Environment files (`--env-file`, `.env`): read into the process environment, so suites'
// `{{ env.X }}`, providers and script assertions all see them. Their values are never written out.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { InputError } from '../core/errors.js';

/** What loading env files did, for the user (names only, never values). */
export interface EnvLoad {
  files: string[];
  names: string[];
}

function readEnvFile(path: string): Record<string, string> {
  try {
    return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
  } catch (err) {
    throw new InputError({
      file: path,
      message: `cannot read env file: ${(err as Error).message}`,
      severity: 'error',
    });
  }
}

/** The folder a suite argument names (the folder itself, or a file's folder). */
function suiteFolder(suitePath: string | undefined): string {
  const target = resolve(suitePath ?? '.');
  try {
    return statSync(target).isDirectory() ? target : dirname(target);
  } catch {
    return dirname(target);
  }
}

/**
 * promptfoo's rules: files given with `--env-file` (repeatable, or comma-separated) must exist and
 * override the environment, later files winning. Then, with the flag or without it (promptfoo
 * 0.123 reads `.env` at start-up either way), `.env` in the current folder and then in the suite's
 * folder fill in only what is still unset.
 */
export function loadEnvFiles(
  given: string[] | undefined,
  suitePath: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): EnvLoad {
  const explicit = (given ?? [])
    .flatMap((g) => g.split(','))
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const load: EnvLoad = { files: [], names: [] };
  if (explicit.length > 0) {
    const missing = explicit.filter((p) => !existsSync(p) || !statSync(p).isFile());
    if (missing.length > 0)
      throw new InputError(
        missing.map((p) => ({
          file: p,
          message: existsSync(p) ? 'is a folder, not an env file' : 'env file not found',
          severity: 'error' as const,
        })),
      );
    for (const p of explicit) {
      for (const [name, value] of Object.entries(readEnvFile(p))) {
        env[name] = value;
        if (!load.names.includes(name)) load.names.push(name);
      }
      load.files.push(resolve(p));
    }
  }
  const candidates = [...new Set([join(process.cwd(), '.env'), join(suiteFolder(suitePath), '.env')])];
  for (const p of candidates) {
    if (!existsSync(p) || !statSync(p).isFile() || load.files.includes(p)) continue;
    for (const [name, value] of Object.entries(readEnvFile(p))) {
      if (env[name] !== undefined) continue;
      env[name] = value;
      load.names.push(name);
    }
    load.files.push(p);
  }
  return load;
}
