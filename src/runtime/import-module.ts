// Importing a user's JavaScript or TypeScript module (script assertions, transforms, generators,
// filters, var scripts, scoring functions). Node 20 cannot import TypeScript, so `.ts`, `.mts`,
// `.cts`, `.tsx` and `.jsx` files go through tsx's scoped loader, loaded only when such a file is
// met: it is the loader promptfoo itself registers for TypeScript, so a file promptfoo can import,
// assay can too, with the same module format rules (a `.ts` file is CommonJS unless its
// package.json says `"type": "module"`, as with `.js`).
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Extensions that need the TypeScript loader. */
export const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx', '.jsx']);

/** Every extension of a module assay can import. */
export const MODULE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', ...TYPESCRIPT_EXTENSIONS]);

/** Whether a path is a TypeScript (or JSX) module, which needs the loader. */
export function isTypeScriptPath(path: string): boolean {
  return TYPESCRIPT_EXTENSIONS.has(extname(path).toLowerCase()) && !/\.d\.[cm]?ts$/i.test(path);
}

type TsImport = (specifier: string, parent: string) => Promise<unknown>;
let tsImport: Promise<TsImport> | undefined;

/** tsx's scoped import (it touches no other import of the process), or why it is not there. */
function typeScriptLoader(): Promise<TsImport> {
  tsImport ??= import('tsx/esm/api').then(
    (api) => api.tsImport as TsImport,
    () => {
      tsImport = undefined;
      throw new Error(
        'TypeScript files need the optional package tsx (npm install tsx), which assay loads them with',
      );
    },
  );
  return tsImport;
}

/** Imports a module by its absolute path; a TypeScript one through tsx. */
export async function importModule(absPath: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(absPath).href;
  if (!isTypeScriptPath(absPath)) return (await import(url)) as Record<string, unknown>;
  const load = await typeScriptLoader();
  const mod = (await load(url, import.meta.url)) as Record<string, unknown>;
  // A TypeScript file compiled to CommonJS arrives as `{default: module.exports}`, so its
  // `export default` is `default.default` (promptfoo reads it there too): lift it one level.
  const inner = mod.default;
  if (inner === null || typeof inner !== 'object') return mod;
  const exports = inner as Record<string, unknown>;
  return { ...exports, ...mod, default: 'default' in exports ? exports.default : inner };
}
