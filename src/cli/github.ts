// `--reporter github` (automatic when GITHUB_ACTIONS=true): the summary as Markdown appended to
// the job summary ($GITHUB_STEP_SUMMARY) and an `::error` annotation at each failing test's line.
import { appendFileSync } from 'node:fs';
import { failingCases } from '../analysis/scorecard.js';
import type { Scorecard } from '../core/scorecard.js';
import { githubAnnotations, MAX_ANNOTATIONS, renderMarkdown } from '../report/markdown.js';
import type { RunManifest } from '../runlog/types.js';

/** Whether the GitHub reporter is on: asked for, or running in GitHub Actions. */
export function githubReporterOn(reporter: string | undefined, env: NodeJS.ProcessEnv): boolean {
  return reporter === 'github' || (reporter === undefined && env.GITHUB_ACTIONS === 'true');
}

/**
 * Writes the job summary and the annotations. Without $GITHUB_STEP_SUMMARY (not in Actions) the
 * summary goes to stdout. Returns false, after saying why, when the summary file cannot be written.
 */
export async function writeGithubReport(
  runDir: string,
  manifest: RunManifest,
  card: Scorecard,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const summary = renderMarkdown(manifest, card);
  let ok = true;
  if (env.GITHUB_STEP_SUMMARY) {
    try {
      appendFileSync(env.GITHUB_STEP_SUMMARY, `${summary}\n`);
    } catch (err) {
      process.stderr.write(
        `assay: cannot append the job summary to $GITHUB_STEP_SUMMARY: ${(err as Error).message}\n`,
      );
      ok = false;
    }
  } else process.stdout.write(summary);
  const failing = await failingCases(runDir, MAX_ANNOTATIONS);
  for (const line of githubAnnotations(manifest, failing, env.GITHUB_WORKSPACE || undefined))
    process.stdout.write(`${line}\n`);
  return ok;
}
