import { caseCount } from '../core/cases.js';
import { formatDiagnostic, InputError } from '../core/errors.js';
import { countJobs } from '../engine/plan.js';
import { checkGraders } from '../evaluate/check-graders.js';
import { resolveRunSettings } from '../evaluate/settings.js';
import { loadSuite } from '../formats/detect.js';
import { guard, parseFlags } from './common.js';
import { graderFrom, loadOptionsFrom, SUITE_FLAGS, SUITE_FLAGS_USAGE } from './suite-flags.js';

const USAGE = `Usage: assay validate [SUITE] [-c FILE] [options]

Loads and checks a suite (files, prompts, providers, tests, assertion types and values, graders)
without calling any model. Every problem is printed as file:line:col: message. Exit 0 if valid,
2 if not.

Options:
      --grader ID            the grader model for model-graded assertions that name none
      --embedder ID          the embedding model for similarity assertions whose grader has none
                             (e.g. openai:embedding:text-embedding-3-small)
${SUITE_FLAGS_USAGE}`;

/** `assay validate`: load and check a suite, call nothing. */
export async function validateCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = parseFlags(args, {
      config: { type: 'string', short: 'c' },
      ...SUITE_FLAGS,
      grader: { type: 'string' },
      embedder: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (positionals.length + (values.config !== undefined ? 1 : 0) > 1) {
      throw new InputError(
        `expected one suite, got ${[values.config, ...positionals].filter(Boolean).join(' and ')}`,
      );
    }
    const path = values.config ?? positionals[0];
    const flagGrader = graderFrom(values.grader);
    const embedder = graderFrom(values.embedder, '--embedder');
    const suite = await loadSuite(path, loadOptionsFrom(values));
    // The run settings eval would use (evaluate/settings.ts): the suite's own grader and repeat.
    const { grader, repeat } = resolveRunSettings(suite, { grader: flagGrader });
    checkGraders(suite, grader, embedder);
    for (const w of suite.warnings) process.stderr.write(`${formatDiagnostic(w)}\n`);
    const repeated = repeat > 1 ? ` (each ${repeat} times)` : '';
    // A suite that names no model (pramana, ÈwéBench) gets its model from -p at eval time.
    const jobs =
      suite.providers.length > 0
        ? `${suite.providers.length} providers → ${countJobs(suite, suite.providers, { repeat })} jobs${repeated}`
        : `no model named (give one with -p when you run it) → ${countJobs(suite, [{ id: 'echo' }], { repeat })} jobs per model${repeated}`;
    process.stdout.write(
      `ok: ${suite.source.path} (${suite.format}): ${caseCount(suite)} cases, ${suite.prompts.length} prompts, ${jobs}\n`,
    );
    return 0;
  });
}
