// Which provider ids name code files (`file://path.js|.ts|.py[:function]`, and promptfoo's
// `python:path.py[:function]`), without loading the code runtime: the registry and loaders ask
// this for every id.

/** The file and function name of a code provider id, or undefined when it names no code file. */
export function scriptProviderRef(id: string): { path: string; name?: string } | undefined {
  const m =
    /^file:\/\/(.+?\.(?:[cm]?js|[cm]?ts|py))(?::([A-Za-z_$][\w$]*))?$/.exec(id) ??
    /^python:(.+?\.py)(?::([A-Za-z_]\w*))?$/.exec(id);
  return m ? { path: m[1], ...(m[2] ? { name: m[2] } : {}) } : undefined;
}

/**
 * The name promptfoo runs a `python:` provider under when its entry gives no other id:
 * `python:<path>:<function>`, `default` standing for `call_api` (PythonProvider.id()).
 */
export function pythonProviderName(id: string): string | undefined {
  const ref = id.startsWith('python:') ? scriptProviderRef(id) : undefined;
  return ref ? `python:${ref.path}:${ref.name ?? 'default'}` : undefined;
}
