// The one option table: parsing, --help, docs/cli.md and "did you mean" agree, formats bring their
// own flags, and promptfoo's eval command line runs as promptfoo runs it.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatOptions, formatOptionsOf, mainHelp } from '../../src/cli/args.js';
import { type CliOption, COMMANDS, OPTIONS, optionsOf } from '../../src/cli/options.js';
import { PROMPTFOO_EVAL_FLAGS, renderCliReference } from '../../src/cli/reference.js';
import type { JobResult } from '../../src/core/types.js';
import { outputFormats } from '../../src/outputs.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { fixture, repoRoot } from '../support/paths.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-options-');
after(tmp.cleanup);

let n = 0;
/** A fresh working folder holding a copy of the promptfoo command-line fixture. */
function freshCopy(): string {
  const cwd = join(tmp.dir, `cwd-${n++}`);
  cpSync(fixture('promptfoo-cli'), cwd, { recursive: true });
  return cwd;
}

function onlyRunResults(cwd: string): JobResult[] {
  const runs = join(cwd, '.assay', 'runs');
  const dirs = readdirSync(runs);
  assert.equal(dirs.length, 1);
  return readFileSync(join(runs, dirs[0], 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as JobResult);
}

describe('the option table', () => {
  it('gives no command two flags of one name or one letter, and every alias names a flag', async () => {
    const formats = await formatOptions();
    for (const c of COMMANDS) {
      const all = [...optionsOf(c.name), ...formatOptionsOf(c.name, formats)];
      const names = all.map((o) => o.name);
      assert.deepEqual(names, [...new Set(names)], `assay ${c.name}: a flag is declared twice`);
      const shorts = all.map((o) => ('short' in o ? o.short : undefined)).filter(Boolean);
      assert.deepEqual(shorts, [...new Set(shorts)], `assay ${c.name}: a letter is taken twice`);
      for (const o of optionsOf(c.name))
        if (o.aliasOf)
          assert.ok(names.includes(o.aliasOf), `--${o.name} is an alias of a flag ${c.name} lacks`);
    }
  });

  it('docs/cli.md names every flag assay --help names (--require, --version too)', async () => {
    const page = readFileSync(join(repoRoot, 'docs', 'cli.md'), 'utf8');
    const flags = [...new Set(mainHelp().match(/--[a-z][a-z-]+/g))];
    assert.ok(flags.includes('--require'));
    assert.deepEqual(
      flags.filter((f) => !page.includes(`\`${f}`) && !page.includes(`, ${f}`)),
      [],
    );
  });

  it('docs/cli.md lists every output format the registry holds, with its extensions', () => {
    const page = readFileSync(join(repoRoot, 'docs', 'cli.md'), 'utf8');
    const section = page.split('\n## Output formats\n')[1]?.split('\n## ')[0] ?? '';
    for (const f of outputFormats()) {
      const row = section.split('\n').find((l) => l.startsWith(`| \`${f.name}\` |`));
      assert.ok(row, `docs/cli.md: no row for output format ${f.name}`);
      for (const e of f.extensions) assert.ok(row.includes(`\`.${e}\``), `${f.name}: .${e} missing`);
    }
  });

  it('docs/cli.md is the page the table makes (npm run docs:cli writes it)', async () => {
    const page = readFileSync(join(repoRoot, 'docs', 'cli.md'), 'utf8');
    assert.equal(
      page,
      renderCliReference(await formatOptions()),
      'docs/cli.md is stale: run npm run docs:cli and commit it',
    );
  });

  it('every --help lists every flag its command parses, the formats’ own included', async () => {
    const formats = await formatOptions();
    for (const c of COMMANDS) {
      const help = await runCli([c.name, '--help']);
      assert.equal(help.code, 0, c.name);
      assert.match(help.stdout, new RegExp(`^Usage: assay ${c.name} `));
      for (const o of [...optionsOf(c.name), ...formatOptionsOf(c.name, formats)]) {
        if ((o as CliOption).hidden) continue;
        assert.ok(help.stdout.includes(`--${o.name}`), `assay ${c.name} --help does not list --${o.name}`);
      }
    }
    // And the reverse: a flag in help is one the command parses.
    const evalHelp = (await runCli(['eval', '--help'])).stdout;
    for (const m of evalHelp.matchAll(/^\s+(?:-\w, )?--([a-z][\w-]*)/gm)) {
      const parsed = await runCli(['eval', `--${m[1]}`, '--help']);
      assert.doesNotMatch(parsed.stderr, /Unknown option/, `--${m[1]} is in eval --help but not parsed`);
    }
  });

  it('lists every flag of promptfoo eval 0.123.1, each mapped to a flag assay eval parses', async () => {
    const recorded = readFileSync(fixture('promptfoo-cli', 'eval-flags.txt'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    assert.deepEqual(
      PROMPTFOO_EVAL_FLAGS.map((f) => f.promptfoo).sort(),
      [...recorded].sort(),
      'the table of promptfoo flags differs from promptfoo’s own list',
    );
    const evalNames = [...optionsOf('eval'), ...formatOptionsOf('eval', await formatOptions())].map(
      (o) => o.name,
    );
    for (const f of PROMPTFOO_EVAL_FLAGS) {
      assert.ok(f.assay && evalNames.includes(f.assay), `${f.promptfoo}: no assay eval flag ${f.assay}`);
      // Same long name, same letter: the promptfoo spelling parses.
      const long = /--([\w-]+)/.exec(f.promptfoo)?.[1] as string;
      const entry = (OPTIONS as readonly CliOption[]).find(
        (o) => o.name === long && o.commands.includes('eval'),
      );
      const formatEntry = formatOptionsOf('eval', await formatOptions()).find((o) => o.name === long);
      assert.ok(entry ?? formatEntry, `promptfoo's --${long} is not an assay eval flag`);
      const letter = /^-(\w),/.exec(f.promptfoo)?.[1];
      if (letter) assert.equal(entry?.short, letter, `promptfoo's -${letter} is --${long}`);
    }
  });
});

describe('did you mean', () => {
  it('a mistyped flag names the closest flag of the command, exit 2, one line, nothing run', async () => {
    const cwd = freshCopy();
    const r = await runCli(['eval', '--max-concurency', '3', '--no-progress'], { cwd });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /Unknown option '--max-concurency'; did you mean --max-concurrency\?/);
    assert.equal(existsSync(join(cwd, '.assay')), false);
    const compare = await runCli(['compare', '--fail-onn', 'regressed', 'a', 'b']);
    assert.equal(compare.code, 2);
    assert.match(compare.stderr, /did you mean --fail-on\?/);
  });

  it('a flag of another command, or of a format, says where it belongs', async () => {
    const record = await runCli(['compare', '--record', 'x.jsonl', 'a', 'b']);
    assert.equal(record.code, 2);
    assert.match(record.stderr, /--record is an option of lve suites in assay eval, not of assay compare/);
    const policy = await runCli(['eval', '--policy', 'p.yaml']);
    assert.equal(policy.code, 2);
    assert.match(policy.stderr, /--policy is an option of assay compare, not of assay eval/);
  });

  it('a mistyped command names the closest command, exit 2', async () => {
    const r = await runCli(['evla', 'x']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command "evla"; did you mean assay eval\?/);
    const far = await runCli(['frobnicate']);
    assert.equal(far.code, 2);
    assert.doesNotMatch(far.stderr, /did you mean/);
  });

  it('a promptfoo flag assay does not take says what to do instead', async () => {
    const cwd = freshCopy();
    const r = await runCli(['eval', '-c', 'promptfooconfig.yaml', '--share', '--no-progress'], { cwd });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--share: assay has no sharing service/);
    assert.equal(existsSync(join(cwd, '.assay')), false);
  });
});

describe("promptfoo's eval command line", () => {
  it('runs a promptfoo command line unchanged: -p prompts, -r provider, -t tests, --no-table, --no-progress-bar, -o', async () => {
    const cwd = freshCopy();
    const args = ['-c', 'promptfooconfig.yaml', '-p', 'prompts.txt', '-r', 'echo', '-t', 'tests.csv'];
    const r = await runCli(['eval', ...args, '--no-table', '--no-progress-bar', '-o', 'out.json'], { cwd });
    assert.equal(r.code, 1, r.stderr); // one test fails, as in promptfoo
    assert.equal(r.stderr, '');
    // What promptfoo 0.123.1 answered on the same command line (fixture), result by result.
    const promptfoo = JSON.parse(readFileSync(join(cwd, 'promptfoo-results.json'), 'utf8')) as {
      results: {
        prompt: string;
        provider: string;
        vars: Record<string, string>;
        success: boolean;
        output: string;
      }[];
    };
    const ours = onlyRunResults(cwd)
      .map((x) => ({
        prompt: x.promptLabel,
        provider: x.providerId,
        vars: x.case.vars,
        success: x.status === 'pass',
        output: x.output,
      }))
      .sort((a, b) => `${a.vars.topic} ${a.prompt}`.localeCompare(`${b.vars.topic} ${b.prompt}`));
    assert.deepEqual(ours, promptfoo.results);
    // The config's own prompt and test were replaced, not added to.
    assert.doesNotMatch(r.stdout, /config prompt/);
    // -o FILE.json is assay's results JSON (promptfoo's own shape: --output-format promptfoo).
    const out = JSON.parse(readFileSync(join(cwd, 'out.json'), 'utf8'));
    assert.equal(out.results.length, 4);
    assert.equal(out.scorecard.counts.pass, 2);
    assert.equal(out.scorecard.counts.fail, 2);
  });

  it('runs promptfoo’s command line without a config: -p, -r and -t are the whole suite, as in promptfoo', async () => {
    const cwd = freshCopy();
    rmSync(join(cwd, 'promptfooconfig.yaml'));
    const args = ['-p', 'prompts.txt', '-r', 'echo', '-t', 'tests.csv', '--no-table', '--no-progress-bar'];
    const r = await runCli(['eval', ...args], { cwd });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, '');
    // promptfoo 0.123.1 answers the same results on this command line with no config in the folder.
    const promptfoo = JSON.parse(readFileSync(join(cwd, 'promptfoo-results.json'), 'utf8')) as {
      results: { prompt: string; provider: string; vars: Record<string, string>; success: boolean }[];
    };
    const ours = onlyRunResults(cwd)
      .map((x) => ({
        prompt: x.promptLabel,
        provider: x.providerId,
        vars: x.case.vars,
        success: x.status === 'pass',
      }))
      .sort((a, b) => `${a.vars.topic} ${a.prompt}`.localeCompare(`${b.vars.topic} ${b.prompt}`));
    assert.deepEqual(
      ours,
      promptfoo.results.map(({ prompt, provider, vars, success }) => ({ prompt, provider, vars, success })),
    );
    // With more failures than the console lists, it points at the report and names no suite file
    // for a second run: the suite was the command line, there is none.
    const rows = Array.from({ length: 15 }, (_, i) => `t${i},contains:zzz`);
    writeFileSync(join(cwd, 'many.csv'), `topic,__expected\n${rows.join('\n')}\n`);
    const many = await runCli(['eval', ...args.slice(0, 4), '-t', 'many.csv', '--no-progress'], { cwd });
    assert.equal(many.code, 1, many.stderr);
    assert.match(many.stdout, /… and 10 more in the report: file:/);
    assert.doesNotMatch(many.stdout, /config-object/);
    // Without -p, a folder holding no suite is still refused (exit 2), naming what was expected.
    const none = await runCli(['eval', '-r', 'echo', '-t', 'tests.csv', '--no-progress'], { cwd });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no suite found in this folder/);
  });

  it('--table prints the grid promptfoo prints, cells cut by --table-cell-max-length', async () => {
    const cwd = freshCopy();
    const r = await runCli(
      ['eval', '-c', 'promptfooconfig.yaml', '-p', 'prompts.txt', '-r', 'echo', '-t', 'tests.csv'].concat([
        '--table',
        '--no-progress-bar',
        '--table-cell-max-length',
        '20',
      ]),
      { cwd },
    );
    assert.equal(r.code, 1, r.stderr);
    const grid = r.stdout.slice(r.stdout.indexOf('┌'), r.stdout.indexOf('┘') + 1);
    assert.equal(`${grid}\n`, readFileSync(join(cwd, 'promptfoo-table.txt'), 'utf8'));
    // --no-table after --table: the last word wins, as in promptfoo; and no grid is the default.
    const off = await runCli(
      ['eval', '-c', 'promptfooconfig.yaml', '--table', '--no-table', '--no-progress'],
      { cwd },
    );
    assert.doesNotMatch(off.stdout, /┌/);
    const plain = await runCli(['eval', '-c', 'promptfooconfig.yaml', '--no-progress'], { cwd });
    assert.doesNotMatch(plain.stdout, /┌/);
  });

  it('--table shows a model’s escape sequences and bidi overrides as escapes, never raw', async () => {
    const cwd = freshCopy();
    writeFileSync(
      join(cwd, 'hostile.yaml'),
      'prompts: ["{{x}}"]\nproviders: [echo]\ntests:\n  - vars: { x: "a \\e[2J\\e]0;title\\a \\u202Eabc\\u202C \\e]8;;http://evil.example\\aclick" }\n',
    );
    const r = await runCli(['eval', '-c', 'hostile.yaml', '--table', '--no-progress'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    const grid = r.stdout.slice(r.stdout.indexOf('┌'), r.stdout.indexOf('┘') + 1);
    assert.match(grid, /\[PASS\] a \\x1b\[2J\\x1b\]0;title\\x07 \\u202eabc/);
    assert.ok(
      !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(r.stdout),
      JSON.stringify(r.stdout),
    );
  });

  it('--table shows the first 25 tests and says how many more there are', async () => {
    const cwd = freshCopy();
    const rows = Array.from({ length: 27 }, (_, i) => `t${i},contains:t${i}`);
    writeFileSync(join(cwd, 'many.csv'), `topic,__expected\n${rows.join('\n')}\n`);
    const r = await runCli(
      ['eval', '-c', 'promptfooconfig.yaml', '-t', 'many.csv', '--table', '--no-progress'],
      {
        cwd,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /│ t24 /);
    assert.doesNotMatch(r.stdout, /│ t25 /);
    assert.match(r.stdout, /\.\.\. 2 more rows not shown \.\.\./);
  });

  it('-p with a provider id and no such file is still a provider, with a warning', async () => {
    const cwd = freshCopy();
    const r = await runCli(['eval', '-c', 'promptfooconfig.yaml', '-p', 'echo', '--no-progress'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /warning: -p echo: no such file, taken as a provider \(-p is promptfoo's --prompts/,
    );
    assert.deepEqual(
      onlyRunResults(cwd).map((x) => x.providerId),
      ['echo'],
    );
    // A -p value that is neither a file nor a provider is a prompt file that is missing.
    const missing = await runCli(['eval', '-c', 'promptfooconfig.yaml', '-p', 'nope.txt', '--no-progress'], {
      cwd,
    });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.txt/);
  });

  it('--description names the run; --no-write and --tag are taken with a note', async () => {
    const cwd = freshCopy();
    const r = await runCli(
      [
        'eval',
        '-c',
        'promptfooconfig.yaml',
        '--description',
        'nightly',
        '--no-write',
        '--tag',
        'a=b',
        '--no-progress',
      ],
      { cwd },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /assay · nightly \(promptfoo\)/);
    assert.match(r.stderr, /--no-write: assay always writes its run directory/);
    assert.match(r.stderr, /--tag: assay does not record eval tags/);
  });

  it('--prompt-prefix and --prompt-suffix, promptfoo’s own flags (its format’s `flags`), wrap every prompt', async () => {
    const cwd = freshCopy();
    const r = await runCli(
      [
        'eval',
        '-c',
        'promptfooconfig.yaml',
        '--prompt-prefix',
        'PRE ',
        '--prompt-suffix',
        ' POST',
        '--no-progress',
      ],
      { cwd },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      onlyRunResults(cwd).map((x) => x.output),
      ['PRE config prompt from-config POST'],
    );
    const pramana = await runCli(
      ['eval', fixture('pramana', 'v1.0'), '--prompt-prefix', 'x', '--no-progress'],
      {
        cwd,
      },
    );
    assert.equal(pramana.code, 2);
    assert.match(pramana.stderr, /--prompt-prefix does not apply to a pramana suite/);
  });

  it('-p and -t do not apply to a suite of another format (exit 2, naming the flag)', async () => {
    const cwd = freshCopy();
    const r = await runCli(
      ['eval', fixture('pramana', 'v1.0'), '-t', join(cwd, 'tests.csv'), '--no-progress'],
      {
        cwd,
      },
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /-t \(--tests\) does not apply to a pramana suite/);
  });
});

describe('validate -c a -c b', () => {
  it('checks the one suite eval combines from both files', async () => {
    const cwd = freshCopy();
    const one = await runCli(['validate', '-c', 'promptfooconfig.yaml'], { cwd });
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /1 cases, 1 prompts/);
    const both = await runCli(['validate', '-c', 'promptfooconfig.yaml', '-c', 'second.yaml'], { cwd });
    assert.equal(both.code, 0, both.stderr);
    assert.match(both.stdout, /2 cases, 2 prompts/);
    const broken = await runCli(['validate', '-c', 'promptfooconfig.yaml', '-c', 'broken.yaml'], { cwd });
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /broken\.yaml:\d+:\d+: .*no-such-assertion-type/);
  });
});

describe('the resume command a stopped run prints', () => {
  let mock: MockServer;
  before(async () => {
    mock = await startMockServer();
  });
  after(() => mock.close());

  it('repeats every -c, -p and -t, so it finds the same suite and continues the same run', async () => {
    const cwd = freshCopy();
    // Every call to this provider fails: the run stops on its error budget, unfinished.
    writeFileSync(
      join(cwd, 'mock.yaml'),
      `prompts: ['unused {{topic}}']\nproviders:\n  - id: openai:chat:m\n    config: { apiBaseUrl: '${mock.url}/_/fail_500=1/v1', apiKey: k }\ntests:\n  - vars: { topic: x }\n`,
    );
    const args = ['eval', '-c', 'mock.yaml', '-c', 'second.yaml', '-p', 'prompts.txt', '-t', 'tests.csv'];
    const first = await runCli(
      [...args, '--no-progress', '--max-retries', '0', '-j', '1', '--max-errors', '0'],
      {
        cwd,
        env: cleanEnv,
      },
    );
    assert.equal(first.code, 3, first.stderr);
    const hint = /To finish it: assay (.*)/.exec(first.stdout)?.[1];
    assert.ok(hint, first.stdout);
    assert.match(
      hint,
      /^eval -c mock\.yaml -c second\.yaml --prompts prompts\.txt --tests tests\.csv --resume \S+/,
    );
    const again = await runCli([...hint.split(' '), '--no-progress', '--max-retries', '0', '-j', '1'], {
      cwd,
      env: cleanEnv,
    });
    assert.doesNotMatch(again.stderr, /no unfinished run/);
    assert.equal(readdirSync(join(cwd, '.assay', 'runs')).length, 1, 'the same run continued');
  });
});
