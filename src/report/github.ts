// `--reporter github` (automatic when GITHUB_ACTIONS=true) and `assay report --format github`: the
// summary as Markdown appended to the job summary ($GITHUB_STEP_SUMMARY; stdout outside Actions)
// and an `::error` annotation at each failing test's line. As a file (`-o FILE --output-format
// github`) it is the job summary alone.
import { failingCases } from '../analysis/scorecard.js';
import { githubAnnotations, MAX_ANNOTATIONS, renderMarkdown } from './markdown.js';
import { registerOutputFormat } from './outputs.js';

registerOutputFormat({
  name: 'github',
  layout: 'file',
  extensions: [],
  description:
    "GitHub Actions: the Markdown summary appended to $GITHUB_STEP_SUMMARY (stdout outside Actions) and an ::error annotation at each failing test's line",
  write: (run, out) => out.write(renderMarkdown(run.manifest, run.scorecard)),
  async report(run, io) {
    const summary = renderMarkdown(run.manifest, run.scorecard);
    let ok = true;
    const file = io.env.GITHUB_STEP_SUMMARY;
    if (file) {
      try {
        io.append(file, `${summary}\n`);
      } catch (err) {
        io.warn(`assay: cannot append the job summary to $GITHUB_STEP_SUMMARY: ${(err as Error).message}\n`);
        ok = false;
      }
    } else io.print(summary);
    const failing = await failingCases(run.dir, MAX_ANNOTATIONS);
    for (const line of githubAnnotations(run.manifest, failing, io.env.GITHUB_WORKSPACE || undefined))
      io.print(`${line}\n`);
    return ok;
  },
});
