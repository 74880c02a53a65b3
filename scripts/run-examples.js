#!/usr/bin/env node
// Runs `assay eval` on every bundled example and writes reports under .assay/examples/: the
// results files, and for each example an HTML report (its path printed), JUnit XML and Markdown.
// With no OPENAI_API_KEY and no OPENAI_BASE_URL, the examples are answered by assay's offline
// mock model (an OpenAI-compatible server on 127.0.0.1 with the scripted answers in
// examples/offline-model.json); otherwise by the real OpenAI-compatible endpoint. ASSAY_MODEL
// picks the model (e.g. llama3.2 on Ollama).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const examplesDir = join(root, 'examples');
const reportsDir = join(root, '.assay', 'examples');
const env = { ...process.env };
let mock;

if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) {
  const { startMockServer } = await import('../dist/test/support/mock-openai.js');
  const { answers } = JSON.parse(readFileSync(join(examplesDir, 'offline-model.json'), 'utf8'));
  mock = await startMockServer({ answers });
  env.OPENAI_BASE_URL = mock.baseUrl;
  console.log(
    `No OPENAI_API_KEY or OPENAI_BASE_URL: answering with the offline mock model at ${mock.baseUrl}`,
  );
  console.log(
    '(scripted answers from examples/offline-model.json; set OPENAI_BASE_URL or OPENAI_API_KEY for a real model)\n',
  );
} else {
  console.log(
    `Using the OpenAI-compatible endpoint at ${env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1'}\n`,
  );
}

// An ÈwéBench example (a tests/ folder) names no model: the model under test is given with -p,
// as the ÈwéBench tool takes --model, and its native results file is written too.
const isEweBench = (name) => existsSync(join(examplesDir, name, 'tests'));
// An LVE repository (.lverepo) runs each LVE on the model its test.json names.
const isLve = (name) => existsSync(join(examplesDir, name, '.lverepo'));
const suites = readdirSync(examplesDir)
  .filter((name) => statSync(join(examplesDir, name)).isDirectory())
  .filter(
    (name) =>
      isEweBench(name) ||
      isLve(name) ||
      ['promptfooconfig.yaml', 'promptfooconfig.yml', 'promptfooconfig.json', 'example.json'].some((f) =>
        existsSync(join(examplesDir, name, f)),
      ),
  )
  .sort();

let worst = 0;
const htmlReports = [];
try {
  for (const name of suites) {
    console.log(`── examples/${name}`);
    const args = [join(root, 'bin', 'assay.js'), 'eval', join(examplesDir, name), '--no-progress'];
    if (isEweBench(name)) {
      const model = env.ASSAY_MODEL ?? (mock ? 'offline-model' : 'gpt-4o-mini');
      args.push(
        '-r',
        `openai:chat:${model}`,
        '-o',
        join(reportsDir, `${name}/`),
        '--output-format',
        'ewebench',
      );
    } else if (isLve(name)) {
      args.push('-o', join(reportsDir, `${name}.json`));
      if (env.ASSAY_MODEL) args.push('-r', `openai:chat:${env.ASSAY_MODEL}`);
    } else {
      // example.json: how to run a suite whose format names no model or has reports of its own.
      const spec = existsSync(join(examplesDir, name, 'example.json'))
        ? JSON.parse(readFileSync(join(examplesDir, name, 'example.json'), 'utf8'))
        : {};
      args.push(...(spec.args ?? []));
      const model = env.ASSAY_MODEL ?? (spec.needsModel ? (mock ? 'mock-model' : 'gpt-4o-mini') : undefined);
      if (model) args.push('-r', `openai:chat:${model}`);
      if (spec.output)
        args.push(
          '-o',
          join(reportsDir, `${name}-${spec.output.file}`),
          '--output-format',
          spec.output.format,
        );
      else args.push('-o', join(reportsDir, `${name}.json`), '-o', join(reportsDir, `${name}.csv`));
    }
    // Asynchronous on purpose: the offline model is served from this process's event loop.
    const child = spawn(process.execPath, args, { env, stdio: 'inherit', cwd: root });
    const [status] = await once(child, 'exit');
    const code = status ?? 3;
    console.log(`examples/${name}: exit code ${code}`);
    // Every example also gets the HTML report a person opens to see what failed and why, and the
    // same run's JUnit XML and Markdown summary, rendered from the run just made (the newest under
    // .assay/runs) by `assay report`.
    const html = join(reportsDir, `${name}.html`);
    for (const ext of ['html', 'xml', 'md']) rmSync(join(reportsDir, `${name}.${ext}`), { force: true });
    if (code !== 2) {
      for (const ext of ['html', 'xml', 'md']) {
        const report = spawn(
          process.execPath,
          [join(root, 'bin', 'assay.js'), 'report', '-o', join(reportsDir, `${name}.${ext}`)],
          { env, stdio: ['ignore', 'ignore', 'inherit'], cwd: root },
        );
        const [reportStatus] = await once(report, 'exit');
        worst = Math.max(worst, reportStatus ?? 3);
      }
    }
    if (existsSync(html)) {
      htmlReports.push(html);
      console.log(`examples/${name}: open the report: file://${html}`);
    }
    console.log('');
    // Exit 1 is an evaluation that found failing tests: the run itself worked (the promptfoo
    // example fails one test on purpose, to show in its report how a failure reads). A broken
    // example (2: bad input, 3: the run could not complete) fails the command.
    worst = Math.max(worst, code === 1 ? 0 : code);
  }
} finally {
  await mock?.close();
}
console.log(`Reports: ${reportsDir}`);
for (const html of htmlReports) console.log(`  file://${html}`);
process.exitCode = worst;
