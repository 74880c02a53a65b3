import { formatDiagnostic, InputError } from '../core/errors.js';
import { aFormat } from '../core/printable.js';
import { foreignFileHash, loadSuite } from '../formats/detect.js';
import { guard, parseFlags } from './common.js';
import { loadOptionsFrom, SUITE_FLAGS, SUITE_FLAGS_USAGE } from './suite-flags.js';

const USAGE = `Usage: assay hash [SUITE] [options]

Prints the suite's own identity hash, as its format's tool computes it (pramana: sha256:…). With
several parts loaded (pramana tiers), prints one line per part: HASH  NAME. Loads and checks the
suite; calls no model. Exit 2 for a format that defines no suite hash. A file that is no suite
(or one its format refuses) but that a format's tool hashes anyway gets that hash, after the
reasons it does not run (a .jsonl of objects with ids, or an empty one: pramana's hash_suite,
which does not validate the tests).

Options:
${SUITE_FLAGS_USAGE}  -h, --help
`;

/** `assay hash`: print a suite's native hash (or each part's). */
export async function hashCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = parseFlags(args, {
      config: { type: 'string', short: 'c' },
      ...SUITE_FLAGS,
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (positionals.length + (values.config !== undefined ? 1 : 0) > 1)
      throw new InputError(
        `expected one suite, got ${[values.config, ...positionals].filter(Boolean).join(' and ')}`,
      );
    const path = values.config ?? positionals[0];
    let suite: Awaited<ReturnType<typeof loadSuite>>;
    try {
      suite = await loadSuite(path, loadOptionsFrom(values));
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
