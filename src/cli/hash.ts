import { formatDiagnostic, InputError } from '../core/errors.js';
import { aFormat } from '../core/printable.js';
import { foreignFileHash, loadSuite } from '../formats/detect.js';
import { formatLoadOptions, parseCommand, usage } from './args.js';
import { guard } from './common.js';
import { loadOptionsFrom } from './suite-flags.js';

/** `assay hash`: print a suite's native hash (or each part's). */
export async function hashCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const parsed = await parseCommand('hash', args);
    const { values, positionals } = parsed;
    if (values.help) {
      process.stdout.write(usage('hash', parsed.formatFlags));
      return 0;
    }
    const given = [...(values.config ?? []), ...positionals];
    if (given.length > 1) throw new InputError(`expected one suite, got ${given.join(' and ')}`);
    const path = given[0];
    let suite: Awaited<ReturnType<typeof loadSuite>>;
    try {
      suite = await loadSuite(path, { ...loadOptionsFrom(values), ...formatLoadOptions(parsed) });
    } catch (err) {
      const foreign =
        err instanceof InputError && path !== undefined ? await foreignFileHash(path) : undefined;
      if (!foreign) throw err;
      // Why it does not run, then the hash its tool computes anyway (pramana hashes unvalidated lines).
      if (foreign.refused)
        for (const d of (err as InputError).diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
      process.stderr.write(`${path}: not a runnable suite; ${foreign.format}'s hash of its lines\n`);
      process.stdout.write(`${foreign.hash}\n`);
      return 0;
    }
    for (const w of suite.warnings) process.stderr.write(`${formatDiagnostic(w)}\n`);
    const { nativeHash, nativeHashes } = suite.source;
    if (nativeHash !== undefined) {
      process.stdout.write(`${nativeHash}\n`);
      return 0;
    }
    if (nativeHashes && Object.keys(nativeHashes).length > 0) {
      for (const [name, hash] of Object.entries(nativeHashes)) process.stdout.write(`${hash}  ${name}\n`);
      return 0;
    }
    throw new InputError({
      file: suite.source.path,
      message: `${aFormat(suite.format)} suite has no suite hash of its own (assay's content hash: ${suite.source.contentHash})`,
      severity: 'error',
    });
  });
}
