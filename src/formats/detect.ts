import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { utf16Problem } from '../core/encoding.js';
import { InputError } from '../core/errors.js';
import { aFormat } from '../core/printable.js';
import type { Suite } from '../core/types.js';
import { setInterpreterVariables } from '../runtime/interpreters.js';
import type { LoadOptions, SuiteFormat } from './types.js';

export type * from './types.js';

type Refusable = Exclude<keyof LoadOptions, 'env' | 'streamAboveBytes' | 'providers' | 'ownAppends'>;

/** The LoadOptions fields no format's own flag sets, with the command-line flags that set them. */
const SHARED_FLAGS: Partial<Record<Refusable, string>> = {
  mode: '--mode',
  vars: '--var',
  combine: 'a second -c',
  prompts: '-p (--prompts)',
  tests: '-t (--tests)',
};

/** Each format module exports `format: SuiteFormat` (of the name given here); modules load on first use. */
const FORMATS: [string, () => Promise<SuiteFormat>][] = [
  ['promptfoo', async () => (await import('./promptfoo/format.js')).format],
  ['pramana', async () => (await import('./pramana/format.js')).format],
  ['ewebench', async () => (await import('./ewebench/format.js')).format],
  ['apastra', async () => (await import('./apastra/format.js')).format],
  ['lve', async () => (await import('./lve/format.js')).format],
];

/** Formats registered by plugins (`registerFormat`), tried after the built-in ones, in order. */
const registered: SuiteFormat[] = [];

let formats: SuiteFormat[] | undefined;

/** Every known format, in detection order: the built-in ones, then those registered. */
export async function suiteFormats(): Promise<SuiteFormat[]> {
  if (!formats) {
    const builtIn = await Promise.all(FORMATS.map(([, f]) => f()));
    formats ??= [...builtIn, ...registered];
    useInterpreters(formats);
  }
  return formats;
}

/** The format of this name (a run's `manifest.suite.format`), if it is known. */
export async function formatNamed(name: string): Promise<SuiteFormat | undefined> {
  return (await suiteFormats()).find((f) => f.name === name);
}

/**
 * Adds a suite format: `loadSuite`, `evaluate()` and every command then recognise its suites (tried
 * after the built-in formats, so it never changes how their suites are read). Its name must be new.
 * `detectFile(path, text)` (and/or `detectDir(dir)`) says cheaply whether a path is one of its
 * suites; `load(path, options)` returns the core `Suite` (cases with vars and assertions, prompts,
 * providers); `options` lists the LoadOptions it accepts (`[]`: the others are refused, exit 2).
 * Bad input is an `InputError` naming the file and line. The optional hooks (`baseline`,
 * `policyCompare`, `failures`, `interpreters`) give the commands the format's own rules.
 *
 * @example
 * registerFormat({
 *   name: 'tsv', expects: 'a .tsv file of prompt<TAB>expected lines', options: [],
 *   detectFile: (path) => path.endsWith('.tsv'),
 *   load: async (path) => mySuiteFrom(path),
 * });
 */
export function registerFormat(format: SuiteFormat): void {
  if (typeof format?.name !== 'string' || format.name === '' || typeof format.load !== 'function')
    throw new TypeError('registerFormat: a format needs a name and a load(path, options) function');
  if (!Array.isArray(format.options))
    throw new TypeError(
      `registerFormat: format ${format.name} needs options (the LoadOptions it accepts; [] for none)`,
    );
  if (FORMATS.some(([name]) => name === format.name) || registered.some((f) => f.name === format.name))
    throw new Error(`registerFormat: a format named ${format.name} is already registered`);
  registered.push(format);
  if (formats) {
    formats.push(format);
    useInterpreters(formats);
  }
}

/** Hands the Python and Ruby runners every format's interpreter variables. */
function useInterpreters(all: SuiteFormat[]): void {
  setInterpreterVariables({
    python: all.flatMap((f) => (f.interpreters?.python ? [f.interpreters.python] : [])),
    ruby: all.flatMap((f) => (f.interpreters?.ruby ? [f.interpreters.ruby] : [])),
  });
}

/**
 * Finds and loads a suite from a path (a file or a folder), recognising its format by its shape.
 * Every loader returns the same core Suite; nothing after this point asks which format it was.
 */
export async function loadSuite(path: string | undefined, options: LoadOptions = {}): Promise<Suite> {
  const target = resolve(path ?? '.');
  const shown = path ?? '.';
  let isDir: boolean;
  try {
    isDir = statSync(target).isDirectory();
  } catch {
    throw new InputError({ file: shown, message: 'no such file or folder', severity: 'error' });
  }
  const all = await suiteFormats();
  if (isDir) {
    for (const f of all) {
      const found = f.detectDir?.(target);
      if (found) return loadWith(f, found, options);
    }
    throw new InputError({
      file: shown,
      message: `no suite found in this folder; expected one of: ${all.map((f) => f.expects).join('; ')}`,
      severity: 'error',
    });
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(target);
  } catch (err) {
    throw new InputError({
      file: target,
      message: `cannot read: ${(err as Error).message}`,
      severity: 'error',
    });
  }
  // Said before detection: a UTF-16 file looks like no suite at all.
  const utf16 = utf16Problem(bytes);
  if (utf16) throw new InputError({ file: target, message: utf16, severity: 'error' });
  const text = bytes.toString('utf8');
  for (const f of all) if (f.detectFile?.(target, text)) return loadWith(f, target, options);
  throw new InputError({
    file: target,
    message: `not a suite assay recognises; expected one of: ${all.map((f) => f.expects).join('; ')}`,
    severity: 'error',
  });
}

/**
 * Loads a suite from a config object of a format's shape (default: a promptfoo config), as its
 * file would load; diagnostics name paths in the object. Refused (InputError) for a format with no
 * in-memory form.
 */
export async function loadSuiteObject(
  config: unknown,
  options: LoadOptions & { format?: string; basePath?: string } = {},
): Promise<Suite> {
  const { format: name = 'promptfoo', ...rest } = options;
  const format = await formatNamed(name);
  if (!format?.loadObject) {
    const objects = (await suiteFormats()).filter((f) => f.loadObject).map((f) => f.name);
    throw new InputError(
      `configFormat ${name}: ${format ? 'this format has no config-object form' : 'no such suite format'}; config objects are read for: ${objects.join(', ')}`,
    );
  }
  return format.loadObject(config, rest);
}

/**
 * For a file that does not load as a suite: the first format hash its tool would compute of it
 * (`assay hash` only; such a file never runs). A file a format recognises but refuses (a pramana
 * tier with integer ids) gets only that format's hash, with `refused` set: its tool hashes
 * without validating. Undefined for a folder or when none applies.
 */
export async function foreignFileHash(
  path: string,
): Promise<{ format: string; hash: string; refused?: boolean } | undefined> {
  const target = resolve(path);
  let text: string;
  try {
    if (statSync(target).isDirectory()) return undefined;
    text = readFileSync(target, 'utf8');
  } catch {
    return undefined;
  }
  const all = await suiteFormats();
  const detected = all.find((f) => f.detectFile?.(target, text));
  if (detected) {
    const hash = await detected.hashFile?.(target);
    return hash === undefined ? undefined : { format: detected.name, hash, refused: true };
  }
  for (const f of all) {
    const hash = await f.hashFile?.(target);
    if (hash !== undefined) return { format: f.name, hash };
  }
  return undefined;
}

function loadWith(format: SuiteFormat, path: string, options: LoadOptions): Promise<Suite> {
  // The flag of each field: a format's own (its `flags` hook), else one every format may take.
  const flagOf: Partial<Record<Refusable, string>> = { ...SHARED_FLAGS };
  for (const f of formats ?? [])
    for (const flag of f.flags ?? []) if (flag.load) flagOf[flag.load.option] ??= `--${flag.name}`;
  const refused = (Object.keys(flagOf) as Refusable[]).filter(
    (k) => options[k] !== undefined && !format.options.includes(k),
  );
  if (refused.length > 0) {
    throw new InputError(
      refused.map((k) => ({
        file: path,
        message: `${flagOf[k]} does not apply to ${aFormat(format.name)} suite`,
        severity: 'error' as const,
      })),
    );
  }
  return format.load(path, options);
}
