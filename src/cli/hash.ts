import { formatDiagnostic, InputError } from '../core/errors.js';
import { loadSuite } from '../formats/detect.js';
import { guard, parseFlags } from './common.js';
import { loadOptionsFrom, SUITE_FLAGS, SUITE_FLAGS_USAGE } from './suite-flags.js';

const USAGE = `Usage: assay hash [SUITE] [options]

Prints the suite's own identity hash, as its format's tool computes it (pramana: sha256:…). With
several parts loaded (pramana tiers), prints one line per part: HASH  NAME. Loads and checks the
suite; calls no model. Exit 2 for a format that defines no suite hash.

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
    const suite = await loadSuite(values.config ?? positionals[0], loadOptionsFrom(values));
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
      message: `a ${suite.format} suite has no suite hash of its own (assay's content hash: ${suite.source.contentHash})`,
      severity: 'error',
    });
  });
}
