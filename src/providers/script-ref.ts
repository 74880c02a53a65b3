// Which provider ids name code files (`file://path.js|.ts|.py[:function]`), without loading the
// code runtime: the registry and loaders ask this for every id.

/** The file and function name of a `file://` provider id, or undefined when it names no code file. */
export function scriptProviderRef(id: string): { path: string; name?: string } | undefined {
  const m = /^file:\/\/(.+?\.(?:[cm]?js|[cm]?ts|py))(?::([A-Za-z_$][\w$]*))?$/.exec(id);
  return m ? { path: m[1], ...(m[2] ? { name: m[2] } : {}) } : undefined;
}
