// The terminal is a sink like any file: CI logs are kept for months. Everything the CLI prints —
// progress lines, `--verbose` result lines, the summary, tables, warnings, error messages, a report
// piped to stdout — goes through one redacting writer, with the secrets the run redacts its files
// with (the command hands them to the run: evaluate's `secrets`).
import { Secrets } from '../core/secrets.js';

let current: Secrets | undefined;

/**
 * The secrets everything printed is redacted with: those of the environment at first, and every
 * credential a run of this process declares (the run is given this instance).
 */
export function terminalSecrets(): Secrets {
  current ??= new Secrets([], {
    warn: (message) => process.stderr.write(`assay: ${message}\n`),
  }).addEnv(process.env);
  return current;
}

/**
 * Routes stdout and stderr through {@link terminalSecrets}: each write has every spelling of every
 * secret replaced by `[redacted]`. Done once per process, before anything is printed. A write is
 * redacted as a whole: a secret split over two writes is not seen (assay writes whole lines).
 */
export function redactTerminal(): void {
  const secrets = terminalSecrets();
  for (const stream of [process.stdout, process.stderr]) {
    const marked = stream as NodeJS.WriteStream & { [REDACTING]?: true };
    if (marked[REDACTING]) continue;
    marked[REDACTING] = true;
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(secrets.empty ? chunk : redactChunk(chunk, rest[0], secrets), ...rest)) as typeof stream.write;
  }
}

const REDACTING = Symbol('assay.redacting');

/** A chunk written to the terminal with the secrets redacted (text as UTF-8; other encodings as given). */
function redactChunk(chunk: unknown, encoding: unknown, secrets: Secrets): unknown {
  if (typeof chunk === 'string') {
    const utf8 =
      encoding === undefined || typeof encoding === 'function' || /^utf-?8$/i.test(String(encoding));
    return utf8 ? secrets.redact(chunk) : chunk;
  }
  if (chunk instanceof Uint8Array) {
    const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
    const out = secrets.redact(text);
    return out === text ? chunk : Buffer.from(out, 'utf8');
  }
  return chunk;
}
