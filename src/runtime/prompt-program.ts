// Prompts made by a program for each job (PromptTemplate.program, promptfoo's prompt functions and
// executable prompts): the program gets `{vars, provider: {id, label}, config}`; what it makes is
// the prompt's text, rendered with the vars afterwards as any prompt is.

import { dirname } from 'node:path';
import type { PromptTemplate } from '../core/types.js';
import { runCommand } from '../providers/processes.js';
import { loadScriptFunction } from './js-runtime.js';
import { callPython, pythonExecutable } from './python-worker.js';

/** A prompt program that failed: the job is an error with this message. */
export class PromptProgramError extends Error {}

const ANSI = /\x1b(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])/g;

/** How long a prompt program may run. */
const PROGRAM_TIME_LIMIT_MS = 60_000;

/**
 * Runs a prompt program as a command of its own (its own process group, stdin at end of input):
 * past its time limit it and what it started are stopped, so it can neither hang the run nor
 * outlive it.
 */
async function run(
  command: string,
  args: string[],
  cwd: string | undefined,
): Promise<{ stdout: string; stderr: string }> {
  const end = await runCommand(command, args, {
    cwd: cwd ?? process.cwd(),
    env: process.env,
    signal: AbortSignal.timeout(PROGRAM_TIME_LIMIT_MS),
    maxBuffer: 16 * 1024 * 1024,
  });
  const failed = (why: string) => new PromptProgramError(`Error running prompt ${command}: ${why}`);
  switch (end.kind) {
    case 'not-started':
      throw failed(end.error.message.split('\n')[0] ?? String(end.error.code));
    case 'abandoned':
      throw failed(`it did not finish within ${PROGRAM_TIME_LIMIT_MS / 1000} s and was stopped`);
    case 'too-much-output':
      throw failed('it wrote more than 16 MiB of output and was stopped');
    case 'exited':
      if (end.code !== 0 || end.signal !== null) {
        const first = end.stderr.trim().split('\n')[0];
        throw failed(`it ended with ${end.signal ?? `exit code ${end.code}`}${first ? `: ${first}` : ''}`);
      }
      return { stdout: end.stdout, stderr: end.stderr };
  }
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
