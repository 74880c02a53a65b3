// Prompts made by a program for each job (PromptTemplate.program, promptfoo's prompt functions and
// executable prompts): the program gets `{vars, provider: {id, label}, config}`; what it makes is
// the prompt's text, rendered with the vars afterwards as any prompt is.
import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import type { PromptTemplate } from '../../core/types.js';
import { loadScriptFunction } from './js-runtime.js';
import { callPython, pythonExecutable } from './python-worker.js';

/** A prompt program that failed: the job is an error with this message. */
export class PromptProgramError extends Error {}

const ANSI = /\x1b(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])/g;

function run(
  command: string,
  args: string[],
  cwd: string | undefined,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err)
        reject(new PromptProgramError(`Error running prompt ${command}: ${err.message.split('\n')[0]}`));
      else resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** The prompt a job sends: the template itself, or for a program the text it made. */
export async function programPrompt(
  prompt: PromptTemplate,
  vars: Record<string, unknown>,
  provider: { id: string; label?: string },
): Promise<PromptTemplate> {
  const program = prompt.program;
  if (!program) return prompt;
  const context = { vars, provider: { id: provider.id, label: provider.label }, config: prompt.config ?? {} };
  let result: unknown;
  switch (program.kind) {
    case 'javascript': {
      const fn = await loadScriptFunction(program.path, program.fn, program.path);
      result = await fn(context);
      break;
    }
    case 'python': {
      const reply = await callPython({
        kind: 'file',
        path: program.path,
        fn: program.fn ?? 'get_prompt',
        args: [context],
      });
      if (!reply.ok)
        throw new PromptProgramError(`Error running Python prompt ${program.path}: ${reply.error}`);
      result = reply.result;
      break;
    }
    case 'python-script': {
      const { stdout } = await run(
        pythonExecutable(),
        [program.path, JSON.stringify(context)],
        dirname(program.path),
      );
      result = stdout.replace(/\r?\n$/, '');
      break;
    }
    case 'executable': {
      const { stdout, stderr } = await run(
        program.path,
        [...(program.args ?? []), JSON.stringify(context)],
        program.cwd,
      );
      const out = stdout.trim().replace(ANSI, '');
      if (!out && stderr.trim()) throw new PromptProgramError(stderr.trim().replace(ANSI, ''));
      result = out;
      break;
    }
  }
  if (typeof result === 'string') return { ...prompt, raw: result };
  if (result !== null && typeof result === 'object') {
    const made = result as { prompt?: unknown; config?: Record<string, unknown> };
    if ('prompt' in made) {
      const raw = typeof made.prompt === 'string' ? made.prompt : JSON.stringify(made.prompt);
      return { ...prompt, raw, ...(made.config ? { config: { ...prompt.config, ...made.config } } : {}) };
    }
    return { ...prompt, raw: JSON.stringify(result) };
  }
  throw new PromptProgramError(`Prompt function must return a string or object, got ${typeof result}`);
}
