// The `ruby` assertion: inline Ruby wrapped into `main(output, context)` (one line becomes
// `return <line>`; several lines are indented into the method, as promptfoo wraps them), or a
// `file://x.rb[:fn]` method (default `get_assert`; `Klass.method` for a class method). Each call
// runs the interpreter once (the formats' variable, promptfoo's `PROMPTFOO_RUBY`, else `ASSAY_RUBY`,
// else `ruby` on the PATH): the
// arguments go in as a JSON file and the result comes back as one. Without an interpreter the
// assertion cannot be judged: the job is an error that names the missing interpreter.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../../providers/processes.js';
import { firstSet, interpreterVariables } from '../../runtime/interpreters.js';
import { pythonTimeLimit } from '../../runtime/python-worker.js';
import { parseScriptRef, scriptPath } from '../../runtime/script-ref.js';
import type { Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { type ScriptScoreInput, scriptContext, scriptOutput } from './context.js';
import { normalizePythonResult, RUBY, type ScriptScoreResult } from './normalize.js';
import { errorText } from './run-file.js';

// Loads the script, calls the method with the JSON arguments and writes its result as JSON.
const RUNNER = `
require 'json'
script, method, args_path, out_path = ARGV
$LOAD_PATH.unshift(File.dirname(File.absolute_path(script)))
load script
args = JSON.parse(File.read(args_path, encoding: 'utf-8'))
result =
  if method.include?('.')
    klass, name = method.split('.', 2)
    Object.const_get(klass).public_send(name, *args)
  else
    send(method, *args)
  end
File.write(out_path, JSON.generate({ 'result' => result }), encoding: 'utf-8')
`;

/**
 * The Ruby interpreter to run: the first of the formats' variables set (promptfoo's
 * `PROMPTFOO_RUBY`; the format registry supplies them), else `ASSAY_RUBY`, else `ruby`.
 */
export function rubyExecutable(
  env: NodeJS.ProcessEnv = process.env,
  formatVariables: string[] = interpreterVariables().ruby,
): string {
  return firstSet(env, formatVariables) || env.ASSAY_RUBY || 'ruby';
}

/** promptfoo's wrapping of inline Ruby into `main(output, context)`. */
export function rubyScript(code: string): string {
  let body: string;
  if (code.includes('\n')) {
    const indent = /^(?!\s*$)\s+/m.exec(code)?.[0] ?? '  ';
    body = code
      .split('\n')
      .map((line) => `${indent}${line}`)
      .join('\n');
  } else body = `  return ${code}`;
  return `require 'json'\n\ndef main(output, context)\n${body}\nend\n`;
}

/** Runs `method` of a Ruby file with JSON arguments; throws with Ruby's message when it fails. */
export async function callRuby(script: string, method: string, args: unknown[]): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), 'assay-ruby-'));
  try {
    const argsPath = join(dir, 'args.json');
    const outPath = join(dir, 'out.json');
    await writeFile(argsPath, JSON.stringify(args));
    const ruby = rubyExecutable();
    // Ruby runs as a command of its own (its own process group, stdin at end of input), bounded by
    // the time limit of a code call (the run's job time limit): a script that never ends is killed
    // with everything it started, and cannot keep assay from exiting.
    const limitMs = pythonTimeLimit();
    const end = await runCommand(ruby, ['-e', RUNNER, script, method, argsPath, outPath], {
      cwd: process.cwd(),
      env: process.env,
      signal: AbortSignal.timeout(Math.min(limitMs, 2_147_483_647)),
      maxBuffer: 16 * 1024 * 1024,
    });
    if (end.kind === 'not-started') {
      if (end.error.code === 'ENOENT')
        throw new ScorerInputError(
          `Ruby is not installed: "${ruby}" was not found (install Ruby, or set ${interpreterVariables().ruby[0] ?? 'ASSAY_RUBY'} to its path)`,
        );
      throw new Error(`"${ruby}" could not be started (${end.error.message})`);
    }
    if (end.kind === 'abandoned') {
      const shown = limitMs % 1000 === 0 ? `${limitMs / 1000} s` : `${limitMs} ms`;
      throw new Error(
        `timed out: the Ruby code did not return within ${shown} (the time limit of a code call); it was stopped`,
      );
    }
    if (end.kind === 'too-much-output')
      throw new Error('the Ruby code wrote more than 16 MiB of output; it was stopped');
    if (end.code !== 0 || end.signal !== null) {
      const lines = end.stderr.trim().split('\n');
      throw new Error(
        lines.find((l) => /Error|error/.test(l)) ??
          (lines[0] || `ruby ended with ${end.signal ?? `exit code ${end.code}`}`),
      );
    }
    return (JSON.parse(await readFile(outPath, 'utf8')) as { result: unknown }).result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function failed(reason: string): ScriptScoreResult {
  return { pass: false, score: 0, reason };
}

async function scoreRuby(input: ScriptScoreInput): Promise<ScriptScoreResult> {
  const code = input.value;
  if (typeof code !== 'string')
    throw new ScorerInputError('"ruby" needs a string value (inline code or file://path.rb)');
  const written = input.spec.value;
  const opts = {
    threshold: input.spec.threshold,
    negate: input.spec.negate === true,
    suffix: typeof written === 'string' ? written : undefined,
  };
  const args = [scriptOutput(input), scriptContext(input, 'python')];
  const ref = parseScriptRef(code.trim());
  let result: unknown;
  try {
    if (ref) result = await callRuby(scriptPath(ref, input.basePath), ref.fn ?? 'get_assert', args);
    else {
      const dir = await mkdtemp(join(tmpdir(), 'assay-ruby-code-'));
      try {
        const file = join(dir, 'script.rb');
        await writeFile(file, rubyScript(code));
        result = await callRuby(file, 'main', args);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  } catch (err) {
    if (err instanceof ScorerInputError) throw err;
    return failed(`${ref ? 'Error running Ruby script' : 'Ruby code execution failed'}: ${errorText(err)}`);
  }
  try {
    return normalizePythonResult(result, opts, RUBY);
  } catch (err) {
    return failed(`Ruby code execution failed: ${errorText(err)}`);
  }
}

/** `ruby`: a Ruby expression, method body or file method judges the output. */
export const rubyScorer: Scorer = {
  type: 'ruby',
  description:
    'Ruby code (inline expression or body, or file://x.rb[:fn]) returns bool, number or {pass, score, reason}',
  validate: (spec) =>
    typeof spec.value === 'string' && spec.value.trim() !== ''
      ? undefined
      : '"ruby" needs a string value (inline code or file://path.rb)',
  score: scoreRuby,
};
