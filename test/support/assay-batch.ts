// Runs many assay command lines in one Node process, one after another: the corpus test
// (test/formats/promptfoo/corpus-rows.test.ts) runs some two hundred of them, and a fresh process
// for each spends most of its time starting Node and loading the CLI. Each job runs the CLI's own
// `main` (what bin/assay.js calls) in its own working folder and environment, its output captured.
//
// As a child: `node dist/test/support/assay-batch.js` reads one JSON job a line on stdin
// ({cwd, args, env}: env values of null unset a variable) and answers one JSON line per job on
// fd 3 ({code, out}), in order.
import { spawn } from 'node:child_process';
import { createWriteStream, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { repoRoot } from './paths.js';

export interface BatchJob {
  cwd: string;
  args: string[];
  env: Record<string, string | undefined>;
}

export interface BatchResult {
  code: number;
  out: string;
}

/** A child process that runs assay command lines one after another. */
export interface AssayBatch {
  run(job: BatchJob): Promise<BatchResult>;
  close(): Promise<void>;
}

export function startAssayBatch(): AssayBatch {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    stdio: ['pipe', 'inherit', 'inherit', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const waiting: ((r: BatchResult) => void)[] = [];
  const answers = createInterface({ input: child.stdio[3] as NodeJS.ReadableStream });
  answers.on('line', (line) => waiting.shift()?.(JSON.parse(line) as BatchResult));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.on('close', () => {
    for (const w of waiting.splice(0)) w({ code: -1, out: 'assay-batch: the child process ended' });
  });
  return {
    run(job) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        const env = Object.fromEntries(Object.entries(job.env).map(([k, v]) => [k, v ?? null]));
        child.stdin?.write(`${JSON.stringify({ ...job, env })}\n`);
      });
    },
    async close() {
      child.stdin?.end();
      await exited;
    },
  };
}

async function serve(): Promise<void> {
  const { main } = (await import(join(repoRoot, 'dist', 'bundle', 'cli.js'))) as {
    main: (argv: string[]) => Promise<number>;
  };
  // Each run adds listeners to the process and its streams; they are not leaks here.
  process.setMaxListeners(0);
  process.stdout.setMaxListeners(0);
  process.stderr.setMaxListeners(0);
  const answer = createWriteStream('', { fd: 3 });
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  const stderrWrite = process.stderr.write.bind(process.stderr);
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const job = JSON.parse(line) as { cwd: string; args: string[]; env: Record<string, string | null> };
    const saved: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(job.env)) {
      saved[k] = process.env[k];
      if (v === null || v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    const before = process.cwd();
    let out = '';
    const capture = (chunk: unknown): boolean => {
      out += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      return true;
    };
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    let code: number;
    try {
      process.chdir(job.cwd);
      code = await main(job.args);
    } catch (err) {
      out += `assay: ${(err as Error)?.stack ?? err}\n`;
      code = 3;
    } finally {
      process.stdout.write = stdoutWrite;
      process.stderr.write = stderrWrite;
      process.chdir(before);
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      process.exitCode = 0;
    }
    answer.write(`${JSON.stringify({ code, out })}\n`);
  }
  answer.end();
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  await serve();
}
