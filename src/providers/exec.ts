/**
 * `exec:<command line>`: runs a command for each prompt, as promptfoo's exec provider does. The
 * command line is split into words (double or single quotes keep spaces); the program is run
 * without a shell, in the suite's folder, with three more arguments: the prompt, the provider's
 * options as JSON (`{"id", "config"}`) and the call's context as JSON (`{"vars", "prompt"}`). Its
 * standard output, trimmed and with terminal escapes removed, is the answer. A non-zero exit, or
 * standard error with no output, is an error result carrying the program's message; neither is
 * retried (running the same program again gives the same answer).
 */

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { secretConfigValues, secretValues } from '../core/redact.js';
import type { ProviderSpec } from '../core/types.js';
import { configError, redactor } from './http-kit.js';
import type { Provider, ProviderContext, ProviderRequest, ProviderResponse } from './types.js';

/** Terminal escape sequences (CSI and OSC), which promptfoo strips from a script's output. */
const ANSI_ESCAPE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** Output beyond this many bytes is an error, not an answer kept whole. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** The words of a command line, as promptfoo splits it: runs of non-space, or quoted text. */
export function commandWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/[^\s"']+|"([^"]*)"|'([^']*)'/g)) words.push(m[1] ?? m[2] ?? m[0]);
  return words;
}

/** The exec provider (the registry wraps it in the call policy). */
export function createExecAttempts(spec: ProviderSpec, ctx: ProviderContext): Provider {
  const line = spec.id.slice('exec:'.length).trim();
  const words = commandWords(line);
  if (words.length === 0)
    throw configError(spec, `provider "${spec.id}" names no command (expected exec:<command line>)`);
  const [program, ...args] = words;
  const cwd = ctx.basePath ?? process.cwd();
  const config = spec.config ?? {};
  const options = JSON.stringify({
    id: spec.id,
    ...(spec.label ? { label: spec.label } : {}),
    config: { ...config, basePath: cwd },
  });
  // Secrets, not every variable: a path or a locale in an error is what the user needs to read.
  const redact = redactor([...secretValues(ctx.env), ...secretConfigValues(config)]);
  // The files the command names: their contents shape the answer, so they are part of the cache key.
  const fileDigests = (): string[] =>
    words.flatMap((word) => {
      const path = isAbsolute(word) ? word : resolve(cwd, word);
      try {
        if (!existsSync(path) || !statSync(path).isFile()) return [];
        return [createHash('sha256').update(readFileSync(path)).digest('hex')];
      } catch {
        return [];
      }
    });
  const context = (request: ProviderRequest): string =>
    JSON.stringify({ vars: request.vars ?? {}, prompt: { raw: request.prompt } });
  const env = Object.fromEntries(
    Object.entries({ ...process.env, ...ctx.env }).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    ),
  );

  return {
    id: spec.id,
    label: spec.label ?? spec.id,
    describe: () => ({ id: spec.id, command: line }),
    // One limiter per command: a script is not a rate-limited service, but -j still bounds it.
    endpoint: { key: `exec:${cwd}:${line}`, shown: line },
    requestKey: (request) => ({
      command: line,
      cwd,
      files: fileDigests(),
      prompt: request.prompt,
      context: context(request),
      options,
    }),
    call(request: ProviderRequest): Promise<ProviderResponse> {
      const started = performance.now();
      return new Promise((done) => {
        const child = execFile(
          program,
          [...args, request.prompt, options, context(request)],
          {
            cwd,
            env,
            signal: request.signal,
            maxBuffer: MAX_OUTPUT_BYTES,
            encoding: 'utf8',
            windowsHide: true,
          },
          (error, stdout, stderr) => {
            const latencyMs = performance.now() - started;
            const output = stdout.trim().replace(ANSI_ESCAPE, '');
            const errorText = stderr.trim().replace(ANSI_ESCAPE, '');
            if (error) {
              const code = (error as NodeJS.ErrnoException).code;
              const why =
                code === 'ENOENT'
                  ? `command not found: ${program} (run from ${cwd})`
                  : code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
                    ? `the command wrote more than ${MAX_OUTPUT_BYTES} bytes`
                    : `the command failed${typeof error.code === 'number' ? ` with exit code ${error.code}` : error.signal ? ` (killed by ${error.signal})` : ''}${errorText ? `: ${lastLines(errorText)}` : ''}`;
              done({ output: null, error: redact(`exec ${line}: ${why}`), latencyMs });
              return;
            }
            if (output === '' && errorText !== '') {
              done({ output: null, error: redact(`exec ${line}: ${lastLines(errorText)}`), latencyMs });
              return;
            }
            done({ output, latencyMs });
          },
        );
        child.stdin?.end();
      });
    },
  };
}

/** The end of a long error text (where the reason usually is). */
function lastLines(text: string): string {
  const lines = text.split('\n');
  return lines.length <= 5 ? text : `…\n${lines.slice(-5).join('\n')}`;
}
