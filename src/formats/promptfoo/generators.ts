// Test generators (spec §1.4): `tests: file://gen.js[:fn]` or `file://gen.py[:fn]`, optionally as
// `{path, config}`. A JavaScript module's function (or its default export / module.exports) is
// called with the config and may be async, or the export may be the list itself; a Python
// function (default `generate_tests`) is called with the config when one is given. Either way the
// result must be a list of test cases, which then go through the same checks as inline tests.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { importModule } from '../../runtime/import-module.js';
import { pythonExecutable, pythonVariablesText } from '../../runtime/python-worker.js';
import { brief, errorAt, isRecord, type LoadContext } from './context.js';
import { PROMPTFOO_INTERPRETERS } from './interpreters.js';
import { displayPath, fixedLocator, type RawTest, UnreadableFile, type Where } from './source.js';

const JS = new Set(['.js', '.mjs', '.cjs']);
const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx', '.jsx']);

/** Whether a path (without `:fn`) names a generator script. */
export function isGeneratorPath(path: string): boolean {
  const ext = extname(path).toLowerCase();
  return JS.has(ext) || TYPESCRIPT.has(ext) || ext === '.py';
}

/** A generator failed; the message says why, without the file (the caller adds it). */
class GeneratorFailure extends Error {}

function describeError(err: unknown): string {
  if (err instanceof Error)
    return err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
  return String(err);
}

/**
 * Where a module's syntax error is. Node's import() does not say; its syntax check of the same
 * source does (`[stdin]:LINE`, the line, a caret under the column). Asked only when loading failed.
 */
function syntaxErrorPosition(abs: string): { line: number; col: number } | undefined {
  let source: string;
  try {
    source = readFileSync(abs, 'utf8');
  } catch {
    return undefined;
  }
  const type = extname(abs).toLowerCase() === '.cjs' ? 'commonjs' : 'module';
  const check = spawnSync(process.execPath, [`--input-type=${type}`, '--check'], {
    input: source,
    encoding: 'utf8',
    timeout: 10_000,
  });
  const lines = (check.stderr ?? '').split('\n');
  const i = lines.findIndex((l) => /^\[stdin\]:\d+$/.test(l));
  if (i < 0) return undefined;
  const line = Number(lines[i].slice('[stdin]:'.length));
  const caret = lines[i + 2]?.indexOf('^') ?? -1;
  return { line, col: caret >= 0 ? caret + 1 : 1 };
}

function member(owner: unknown, name: string): unknown {
  return (typeof owner === 'object' || typeof owner === 'function') && owner !== null
    ? (owner as Record<string, unknown>)[name]
    : undefined;
}

async function runJavaScript(abs: string, fn: string | undefined, config: unknown): Promise<unknown> {
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(abs);
  } catch (err) {
    const at = err instanceof SyntaxError ? syntaxErrorPosition(abs) : undefined;
    throw new GeneratorFailure(
      `cannot load the module: ${describeError(err).split('\n')[0]}${at ? ` (line ${at.line}, column ${at.col})` : ''}`,
    );
  }
  let target: unknown;
  if (fn !== undefined) {
    // A CommonJS `module.exports = {fn}` shows up both as a named export and under default.
    target = member(mod, fn) ?? member(mod.default, fn);
    if (target === undefined) throw new GeneratorFailure(`it has no export named "${fn}"`);
  } else target = 'default' in mod ? mod.default : mod;
  if (typeof target !== 'function') return target;
  try {
    return await (target as (config: unknown) => unknown)(config);
  } catch (err) {
    throw new GeneratorFailure(`the generator threw: ${describeError(err)}`);
  }
}

// Runs `fn(*args)` from a Python file and writes the JSON result to a file, so what the generator
// prints cannot corrupt it. Coroutines are awaited, as an async generator function is common.
const PYTHON_RUNNER = `
import asyncio, importlib.util, json, os, sys, traceback
path, fn, args_path, out_path = sys.argv[1:5]

def run():
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location('assay_test_generator', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not callable(getattr(module, fn, None)):
        return {'missing': fn}
    with open(args_path, encoding='utf-8') as f:
        args = json.load(f)
    result = getattr(module, fn)(*args)
    if asyncio.iscoroutine(result):
        result = asyncio.run(result)
    try:
        return {'text': json.dumps({'result': result}, allow_nan=False)}
    except ValueError:
        return {'unserialisable': 'it holds NaN or Infinity, which JSON cannot represent'}
    except TypeError as e:
        return {'unserialisable': str(e)}

try:
    reply = run()
except BaseException as e:
    frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == path]
    where = ' (line %d)' % frames[-1].lineno if frames else ''
    reply = {'error': '%s: %s%s' % (type(e).__name__, e, where)}
with open(out_path, 'w', encoding='utf-8') as f:
    f.write(reply['text'] if 'text' in reply else json.dumps(reply))
`;

async function runPython(ctx: LoadContext, abs: string, fn: string, config: unknown): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-gen-'));
  try {
    const argsPath = join(dir, 'args.json');
    const outPath = join(dir, 'out.json');
    writeFileSync(argsPath, JSON.stringify(config === undefined ? [] : [config]));
    const python = pythonExecutable(ctx.env as NodeJS.ProcessEnv, [PROMPTFOO_INTERPRETERS.python]);
    const { code, stderr, spawnError } = await new Promise<{
      code: number | null;
      stderr: string;
      spawnError?: Error;
    }>((resolveRun) => {
      const child = spawn(python, ['-c', PYTHON_RUNNER, abs, fn, argsPath, outPath], {
        cwd: ctx.files.basePath,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      let failed: Error | undefined;
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        err = (err + chunk).slice(-2000);
      });
      child.once('error', (e) => {
        failed = e;
      });
      child.once('close', (exit) => resolveRun({ code: exit, stderr: err, spawnError: failed }));
    });
    if (spawnError) {
      throw new GeneratorFailure(
        `Python 3 is needed to run it, but "${python}" could not be started (${spawnError.message}); install Python 3 or set ${pythonVariablesText([PROMPTFOO_INTERPRETERS.python])} to its path`,
      );
    }
    let reply: { result?: unknown; error?: string; missing?: string; unserialisable?: string };
    try {
      reply = JSON.parse(readFileSync(outPath, 'utf8'));
    } catch {
      const tail = stderr.trim().split('\n').slice(-3).join(' ');
      throw new GeneratorFailure(
        `Python exited with code ${code} without a result${tail ? `: ${tail}` : ''}`,
      );
    }
    if (reply.missing !== undefined)
      throw new GeneratorFailure(`it has no function named "${reply.missing}"`);
    if (reply.error !== undefined) throw new GeneratorFailure(`the generator raised ${reply.error}`);
    if (reply.unserialisable !== undefined) {
      throw new GeneratorFailure(`its result is not JSON: ${reply.unserialisable}`);
    }
    return reply.result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs a test generator and returns its tests, each positioned at the generator file. Problems
 * (missing file, a generator that throws or returns something other than a list of mappings) are
 * reported at `where`, naming the file and function.
 */
export async function generatedTests(
  ctx: LoadContext,
  path: string,
  fn: string | undefined,
  config: unknown,
  where: Where,
): Promise<RawTest[]> {
  const abs = ctx.files.resolve(path);
  const ext = extname(abs).toLowerCase();
  const name = `test generator file://${ctx.files.relative(abs)}${fn ? `:${fn}` : ''}`;
  if (fn !== undefined && !/^[A-Za-z_$][\w$]*$/.test(fn)) {
    errorAt(ctx, where, `${name}: "${fn}" is not a function name`);
    return [];
  }
  try {
    // Read through the suite's files so the generator's source counts in the content hash.
    ctx.files.readBytes(abs);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    errorAt(ctx, where, `${name}: ${err.message}`);
    return [];
  }
  let result: unknown;
  try {
    result =
      ext === '.py'
        ? await runPython(ctx, abs, fn ?? 'generate_tests', config)
        : await runJavaScript(abs, fn, config);
  } catch (err) {
    if (!(err instanceof GeneratorFailure)) throw err;
    errorAt(ctx, where, `${name}: ${err.message}`);
    return [];
  }
  if (!Array.isArray(result)) {
    errorAt(ctx, where, `${name} must return a list of test cases, got ${brief(result)}`);
    return [];
  }
  const at = fixedLocator({ file: displayPath(abs) });
  const tests: RawTest[] = [];
  result.forEach((item, i) => {
    if (isRecord(item)) tests.push({ value: item, at });
    else errorAt(ctx, where, `${name}: test case ${i + 1} must be a mapping, got ${brief(item)}`);
  });
  return tests;
}
