// The CLI reference page (docs/cli.md), made from the option table and the formats' flags:
// `npm run docs:cli` writes it, and test/cli/options.test.ts fails when the page is stale.

import { outputFormats } from '../outputs.js';
import { type FormatOption, flagLabel, formatOptionsOf, REQUIRE_HELP } from './args.js';
import { type CliOption, COMMANDS, GROUPS, optionsOf } from './options.js';

/**
 * Each flag of `promptfoo eval` (0.123.1), with the assay flag that takes it and, where the
 * meaning differs, what assay does instead. A test checks this list against promptfoo's own.
 */
export const PROMPTFOO_EVAL_FLAGS: readonly { promptfoo: string; assay?: string; note?: string }[] = [
  { promptfoo: '-c, --config <paths...>', assay: 'config' },
  { promptfoo: '-a, --assertions <path>', assay: 'assertions' },
  { promptfoo: '-p, --prompts <paths...>', assay: 'prompts' },
  { promptfoo: '-r, --providers <name or path...>', assay: 'providers' },
  { promptfoo: '-t, --tests <path>', assay: 'tests' },
  { promptfoo: '-v, --vars <path>', assay: 'vars' },
  { promptfoo: '--model-outputs <path>', assay: 'model-outputs' },
  { promptfoo: '--prompt-prefix <path>', assay: 'prompt-prefix' },
  { promptfoo: '--prompt-suffix <path>', assay: 'prompt-suffix' },
  { promptfoo: '--var <key=value>', assay: 'var' },
  { promptfoo: '--tag <key=value>', assay: 'tag' },
  {
    promptfoo: '-j, --max-concurrency <number>',
    assay: 'max-concurrency',
    note: "assay's default is 8, promptfoo's 4",
  },
  { promptfoo: '--repeat <number>', assay: 'repeat' },
  { promptfoo: '--delay <number>', assay: 'delay' },
  { promptfoo: '--no-cache', assay: 'no-cache' },
  { promptfoo: '--remote', assay: 'remote' },
  { promptfoo: '-n, --filter-first-n <number>', assay: 'filter-first-n' },
  { promptfoo: '--filter-pattern <pattern>', assay: 'filter-pattern' },
  { promptfoo: '--filter-range <start:end>', assay: 'filter-range' },
  { promptfoo: '--filter-prompts <pattern>', assay: 'filter-prompts' },
  { promptfoo: '--filter-providers, --filter-targets <providers>', assay: 'filter-providers' },
  { promptfoo: '--filter-sample <number>', assay: 'filter-sample' },
  { promptfoo: '--filter-sample-seed <number>', assay: 'filter-sample-seed' },
  {
    promptfoo: '--filter-failing <path or id>',
    assay: 'filter-failing',
    note: 'an assay run id or directory, or a promptfoo/assay results JSON',
  },
  { promptfoo: '--filter-failing-only <path or id>', assay: 'filter-failing-only' },
  { promptfoo: '--filter-errors-only <path or id>', assay: 'filter-errors-only' },
  { promptfoo: '--filter-metadata <key=value>', assay: 'filter-metadata' },
  { promptfoo: '-o, --output <paths...>', assay: 'output' },
  {
    promptfoo: '--table',
    assay: 'table',
    note: 'promptfoo prints the grid by default; assay only when asked',
  },
  { promptfoo: '--no-table', assay: 'no-table' },
  { promptfoo: '--table-cell-max-length <number>', assay: 'table-cell-max-length' },
  { promptfoo: '--share', assay: 'share' },
  { promptfoo: '--no-share', assay: 'no-share' },
  { promptfoo: '--resume [evalId]', assay: 'resume', note: 'an assay run id or run directory' },
  { promptfoo: '--retry-errors', assay: 'retry-errors', note: 'goes with --resume in assay' },
  { promptfoo: '--no-write', assay: 'no-write' },
  { promptfoo: '--grader <provider>', assay: 'grader' },
  { promptfoo: '--suggest-prompts <number>', assay: 'suggest-prompts' },
  { promptfoo: '-w, --watch', assay: 'watch' },
  { promptfoo: '-x, --extension <paths...>', assay: 'extension' },
  { promptfoo: '--description <description>', assay: 'description' },
  { promptfoo: '--no-progress-bar', assay: 'no-progress-bar' },
  { promptfoo: '--env-file, --env-path <path>', assay: 'env-file' },
];

/** A table cell: pipes escaped, one line. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replace(/\s+/g, ' ').trim();
}

function flagCell(o: { name: string; short?: string; arg?: string; type: string }): string {
  return `\`${flagLabel(o).trim()}\``;
}

function settingCell(o: CliOption): string {
  return o.setting && !o.setting.startsWith('cli.') ? `\`${o.setting}\`` : '';
}

/** docs/cli.md. */
export function renderCliReference(formatFlags: FormatOption[]): string {
  let out = `# Command-line reference

<!-- Generated from src/cli/options.ts and each format's \`flags\` (src/formats/*/format.ts) by
\`npm run docs:cli\`. Do not edit: test/cli/options.test.ts fails when this page is stale. -->

Every command's flags come from one option table, the same one that parses the command line and
prints \`assay COMMAND --help\`. A mistyped command or flag gets "did you mean" and exit code 2.
The **sets** column names the setting a flag maps to: \`evaluate.X\` is the library's
\`evaluate({ X })\`, \`settings.X\` a run setting a suite may also set for itself (promptfoo's
\`evaluateOptions\`/\`commandLineOptions\`; the flag wins), \`filters.X\` a test filter, \`load.X\` an
option of the suite's loader, \`compare.X\` a comparison option.

| command | what it does |
| --- | --- |
`;
  for (const c of COMMANDS) out += `| [\`assay ${c.name}\`](#assay-${c.name}) | ${cell(c.summary)} |\n`;
  out += `\n## Every command\n\n| flag | what it does |\n| --- | --- |\n| \`--require MODULE\` | ${cell(REQUIRE_HELP.replace(/^Every command takes --require MODULE \(repeatable\): /, '(repeatable) '))} |\n| \`-h, --help\` | the command's options (\`assay --help\`: every command) |\n| \`-v, --version\` | \`assay --version\` prints assay's version |\n`;
  for (const c of COMMANDS) {
    out += `\n## assay ${c.name}\n\n\`\`\`\nassay ${c.name} ${c.args}\n\`\`\`\n\n${c.about}\n`;
    const own = optionsOf(c.name).filter((o) => !o.refused && o.name !== 'help');
    for (const group of GROUPS) {
      const entries = own.filter((o) => o.group === group);
      if (entries.length === 0) continue;
      out += `\n### ${group}\n\n| flag | what it does | sets |\n| --- | --- | --- |\n`;
      for (const o of entries)
        out += `| ${flagCell(o)} | ${cell(o.per?.[c.name] ?? o.description)} | ${settingCell(o)} |\n`;
    }
    const formats = formatOptionsOf(c.name, formatFlags);
    if (formats.length > 0) {
      out += `\n### Formats\n\nEach format declares these in its \`flags\`; a suite of another format refuses them (exit 2).\n\n| flag | format | what it does | sets |\n| --- | --- | --- | --- |\n`;
      for (const f of formats)
        out += `| ${flagCell(f)} | ${f.format} | ${cell(f.description)} | ${f.load ? `\`load.${f.load.option}\`` : f.record ? `an in-place \`${f.record}\` output` : ''} |\n`;
    }
    if (c.footer) out += `\n${c.footer}\n`;
  }
  out += `\n## Output formats\n\nWhat \`-o FILE\` writes, by the file's extension, or by name with \`--output-format\` (eval, rescore, merge) or \`--format\` (report). The list is the output-format registry's: a plugin's \`registerOutputFormat\` adds to it.\n\n| format | extensions | what it writes |\n| --- | --- | --- |\n`;
  for (const f of outputFormats()) {
    const aliases = Object.keys(f.aliases ?? {});
    out += `| \`${f.name}\` | ${f.extensions.map((e) => `\`.${e}\``).join(', ')} | ${cell(f.description)}${aliases.length ? ` (also by name: ${aliases.join(', ')})` : ''} |\n`;
  }
  out += `\n## promptfoo's command line\n\n\`assay eval\` takes \`promptfoo eval\`'s flags (promptfoo 0.123.1) with promptfoo's meanings, so a promptfoo command line runs with only the command's name changed. \`-p\` is promptfoo's \`--prompts\`: providers are \`-r\` or \`--provider\`; a \`-p\` value that names no file but is a provider id assay knows is still taken as a provider, with a warning, so command lines written for assay's earlier \`-p PROVIDER\` keep working.\n\n| promptfoo flag | assay | what assay does |\n| --- | --- | --- |\n`;
  const evalOptions = optionsOf('eval');
  const all = [...evalOptions, ...formatOptionsOf('eval', formatFlags)];
  for (const row of PROMPTFOO_EVAL_FLAGS) {
    const o = all.find((x) => x.name === row.assay) as CliOption | FormatOption | undefined;
    const refused = o && 'refused' in o && o.refused ? `refused (exit 2): ${o.refused}` : undefined;
    const noted = o && 'note' in o && o.note ? `accepted; ${o.note}` : undefined;
    const what = refused ?? noted ?? [o?.description, row.note].filter(Boolean).join('; ');
    out += `| \`${row.promptfoo}\` | ${o && !refused ? flagCell(o) : '—'} | ${cell(what)} |\n`;
  }
  return out;
}
