import { caseCount } from '../core/cases.js';
import { formatDiagnostic, InputError } from '../core/errors.js';
import { countJobs } from '../engine/plan.js';
import { checkGraders } from '../evaluate/check-graders.js';
import { resolveRunSettings } from '../evaluate/settings.js';
import { loadSuite } from '../formats/detect.js';
import { formatLoadOptions, parseCommand, usage } from './args.js';
import { guard } from './common.js';
import { promptsAndProviders, testsFlag } from './promptfoo-flags.js';
import { graderFrom, loadOptionsFrom } from './suite-flags.js';

/** `assay validate`: load and check a suite, call nothing. */
export async function validateCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const parsed = await parseCommand('validate', args);
    const { values, positionals } = parsed;
    if (values.help) {
      process.stdout.write(usage('validate', parsed.formatFlags));
      return 0;
    }
    // -c a -c b is the one suite eval combines from them: checked as eval would run it.
    const configs = values.config ?? [];
    if (positionals.length > 1 || (configs.length > 0 && positionals.length > 0)) {
      throw new InputError(`expected one suite, got ${[...configs, ...positionals].join(' and ')}`);
    }
    const path = configs[0] ?? positionals[0];
    const flagGrader = graderFrom(values.grader);
    const embedder = graderFrom(values.embedder, '--embedder');
    const { prompts, providers } = promptsAndProviders(values.prompts, []);
    const suite = await loadSuite(path, {
      ...loadOptionsFrom(values),
      ...formatLoadOptions(parsed),
      ...(configs.length > 1 ? { combine: configs.slice(1) } : {}),
      ...(prompts ? { prompts } : {}),
      ...(testsFlag(values) !== undefined ? { tests: testsFlag(values) } : {}),
      ...(providers ? { providers } : {}),
    });
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
