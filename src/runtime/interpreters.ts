// Which interpreter runs Python and Ruby user code. assay's own variables (`ASSAY_PYTHON`,
// `ASSAY_RUBY`) always apply; the variables a format's own tool reads (promptfoo's
// `PROMPTFOO_PYTHON`, `PROMPTFOO_RUBY`) are a parameter the format registry supplies from each
// format's `interpreters` hook, so this runtime names no format.

let variables: { python: string[]; ruby: string[] } = { python: [], ruby: [] };

/** Sets the formats' interpreter variables (formats/detect.ts, when the formats are known). */
export function setInterpreterVariables(next: { python: string[]; ruby: string[] }): void {
  variables = { python: [...next.python], ruby: [...next.ruby] };
}

/** The formats' interpreter variables, as last set. */
export function interpreterVariables(): { python: string[]; ruby: string[] } {
  return variables;
}

/** The first of these variables set (non-empty) in `env`. */
export function firstSet(env: NodeJS.ProcessEnv, names: string[]): string | undefined {
  for (const name of names) if (env[name]) return env[name];
  return undefined;
}
