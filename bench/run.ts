/**
 * `npm run bench`: measures assay and promptfoo side by side on generated workloads and writes
 * bench/RESULTS.md. See `--help` and bench/README.md.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSuite } from './generate.js';
import { type HtmlReportRow, htmlReportTable, runHtmlWorkload } from './html-report.js';
import { environment } from './machine.js';
import { killRunning, measure, rssMethod } from './measure.js';
import { type MockHandle, startMock } from './mock.js';
import { type BenchOptions, parseOptions, USAGE } from './options.js';
import { PEERS_DIR, RESULTS_MD, ROOT, SNAPSHOT_DIR, WORK_DIR } from './paths.js';
import { ensurePeer, type Peer } from './peer.js';
import { profileMarkdown, summariseProfile } from './profile.js';
import { slowerThanBefore } from './regressions.js';
import {
  consoleTable,
  type ProfileSection,
  preservedAnalysis,
  type Row,
  resultsMarkdown,
  targetLines,
} from './report.js';
import { type RunContext, runWorkload } from './runner.js';
import { snapshotAssay } from './snapshot.js';
import { median, summarise } from './summary.js';
import { checkTargets } from './targets.js';
import { assayFeatures, assayTool, floorTool, promptfooTool, type Tool } from './tools.js';
import { WORKLOAD_NAMES, type Workload, workloads } from './workloads.js';

const say = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

let mock: MockHandle | undefined;

/** Stops everything the bench started, synchronously (also used from signal and exit handlers). */
function cleanup(): void {
  killRunning();
  if (mock) {
    try {
      process.kill(mock.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    mock = undefined;
  }
}

async function main(argv: string[]): Promise<number> {
  let opts: BenchOptions;
  try {
    opts = parseOptions(argv, WORKLOAD_NAMES);
  } catch (err) {
    say(`bench: ${(err as Error).message}`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\nWorkloads: ${WORKLOAD_NAMES.join(', ')}\n`);
    return 0;
  }
  mkdirSync(WORK_DIR, { recursive: true });
  rmSync(join(WORK_DIR, 'logs'), { recursive: true, force: true });
  const suitesDir = join(WORK_DIR, 'suites');
  const list = workloads(opts.quick, opts.runs).filter((w) => !opts.only || opts.only.includes(w.name));

  let peer: Peer | undefined;
  let peerNote: string | undefined;
  if (!opts.peer) peerNote = 'skipped (--no-peer)';
  else {
    try {
      peer = await ensurePeer(PEERS_DIR, say);
      say(`promptfoo ${peer.version} on Node ${peer.nodeVersion}`);
    } catch (err) {
      peerNote = `install failed (${(err as Error).message.split('\n')[0]}); assay ran alone`;
      say(`bench: promptfoo unavailable: ${(err as Error).message}`);
    }
  }

  const snapshot = snapshotAssay(ROOT, SNAPSHOT_DIR);
  const env = environment(snapshot.bin);
  say(`measuring assay ${env.assayVersion} (git ${env.gitCommit}), copied to ${snapshot.dir}`);
  const features = assayFeatures(snapshot.bin);
  if (!features.noCache || !features.cachePath) {
    say(
      `note: this assay build lacks ${[!features.noCache && '--no-cache', !features.cachePath && '--cache-path'].filter(Boolean).join(' and ')}`,
    );
  }
  const floorScript = join(ROOT, '..', 'shared', 'peers', 'floor.mjs');
  const floorNote = existsSync(floorScript) ? undefined : `not run: ${floorScript} not found`;
  if (floorNote) say(`floor ${floorNote}`);
  const tools: Tool[] = [
    assayTool(WORK_DIR, features, snapshot.bin),
    ...(peer ? [promptfooTool(peer, WORK_DIR)] : []),
    ...(floorNote ? [] : [floorTool(floorScript)]),
  ];

  mock = await startMock(snapshot.mockJs, join(WORK_DIR, 'mock.log'));
  say(`mock listening on ${mock.url} (pid ${mock.pid})`);
  const ctx: RunContext = { workDir: WORK_DIR, mock, timeoutMs: opts.timeoutS * 1000, longRunS: 150, say };

  const rows: Row[] = [];
  const htmlRows: HtmlReportRow[] = [];
  const noise = { busyS: 0, capacityS: 0, max: 0 };
  for (const w of list) {
    say(`${w.name}: ${w.title}${w.tests ? `, ${w.tests} tests` : ''}`);
    if (w.kind === 'html') {
      htmlRows.push(await runHtmlWorkload(w, snapshot.bin, ctx));
      continue;
    }
    const config =
      w.kind === 'version'
        ? undefined
        : writeSuite(suitesDir, w.name, w.tests, {
            provider: w.provider,
            mockUrl: mock.url,
            faults: w.faults,
            inline: w.inline,
          });
    const results = await runWorkload(w, config, tools, ctx);
    const byName = (name: Tool['name']) => results.find((r) => r.tool === name);
    const assayRes = byName('assay')!;
    const peerRes = byName('promptfoo');
    const floorRes = byName('floor');
    if (w.kind === 'version') assayRes.notes.push(await nodeFloor(w.runs.assay, ctx));
    for (const r of [...assayRes.runs, ...(peerRes?.runs ?? []), ...(floorRes?.runs ?? [])]) {
      if (r.othersShare === undefined) continue;
      noise.busyS += r.othersShare * r.m.wallS;
      noise.capacityS += r.m.wallS;
      noise.max = Math.max(noise.max, r.othersShare);
    }
    rows.push({
      w,
      assay: summarise(assayRes, w),
      peer: peerRes ? summarise(peerRes, w) : undefined,
      floor: floorRes && !floorRes.skipped ? summarise(floorRes, w) : undefined,
      commands: { assay: assayRes.command, peer: peerRes?.command, floor: floorRes?.command },
    });
  }

  const targets = checkTargets(rows, opts.quick);
  const slower = slowerThanBefore(rows, RESULTS_MD);
  const profiles: ProfileSection[] = [];
  if (opts.profile) {
    for (const t of targets.filter((x) => x.status === 'missed')) {
      const row = rows.find((r) => r.w.name === t.workload);
      if (row) profiles.push(await profileAssay(row, tools[0], ctx));
    }
  }
  await mock.stop();
  mock = undefined;

  process.stdout.write(
    `\n${consoleTable(rows, peerNote)}\n\nTargets:\n${targetLines(targets)}\n\n${slower.text}\n`,
  );
  if (htmlRows.length) process.stdout.write(`\nHTML reports:\n${htmlReportTable(htmlRows)}\n`);
  const partial = opts.quick || opts.only !== undefined;
  const file = partial ? join(WORK_DIR, 'RESULTS-partial.md') : RESULTS_MD;
  const report = resultsMarkdown(
    {
      env,
      rows,
      targets,
      peer: peer && { version: peer.version, nodeVersion: peer.nodeVersion },
      peerNote,
      floorNote,
      slower: slower.text,
      rssMethod: rssMethod(),
      noise:
        noise.capacityS > 0
          ? `other processes took ${((noise.busyS / noise.capacityS) * 100).toFixed(0)}% of the machine's CPU on average during the timed runs (at most ${(noise.max * 100).toFixed(0)}% in one run)`
          : 'not measured',
      argv,
      profiles,
      suiteSample: suiteSample(join(WORK_DIR, 'suites'), list),
      htmlReports: htmlRows,
    },
    preservedAnalysis(RESULTS_MD),
  );
  writeFileSync(file, report);
  say(
    `\nwrote ${file.replace(`${ROOT}/`, '')}${partial ? ' (--quick/--only: bench/RESULTS.md left as it was)' : ''}`,
  );
  return 0;
}

/** The YAML of one generated mock suite plus the first lines of its CSV, for RESULTS.md. */
function suiteSample(dir: string, list: Workload[]): string | undefined {
  const w =
    list.find((x) => x.provider === 'mock' && !x.faults) ??
    list.find((x) => x.kind !== 'version' && x.kind !== 'html');
  if (!w) return undefined;
  const yaml = readFileSync(join(dir, `${w.name}.yaml`), 'utf8').trimEnd();
  const csvName = /file:\/\/([^"]+)/.exec(yaml)?.[1];
  const csv = csvName ? readFileSync(join(dir, csvName), 'utf8').split('\n').slice(0, 3).join('\n') : '';
  return `# ${w.name}.yaml\n${yaml}\n\n# ${csvName ?? 'tests.csv'} (first lines)\n${csv}`;
}

/** Times `node -e 0` (the runtime's own start-up, the floor under any `--version`) and describes it. */
async function nodeFloor(runs: number, ctx: RunContext): Promise<string> {
  const walls: number[] = [];
  for (let i = 0; i < runs; i++) {
    const m = await measure({
      command: process.execPath,
      args: ['-e', '0'],
      cwd: WORK_DIR,
      env: process.env,
      timeoutMs: ctx.timeoutMs,
      logFile: join(WORK_DIR, 'logs', 'node-floor.log'),
    });
    walls.push(m.wallS);
  }
  const mid = median(walls) ?? 0;
  ctx.say(`  bare node -e 0: median ${(mid * 1000).toFixed(0)} ms`);
  return `bare \`node -e 0\` on the same Node: median ${(mid * 1000).toFixed(0)} ms (min ${(Math.min(...walls) * 1000).toFixed(0)})`;
}

/** Reruns assay once on a row's workload under `--cpu-prof` and summarises the profile. */
async function profileAssay(row: Row, assay: Tool, ctx: RunContext): Promise<ProfileSection> {
  const w: Workload = row.w;
  const profDir = join(WORK_DIR, 'profiles', w.name);
  rmSync(profDir, { recursive: true, force: true });
  mkdirSync(profDir, { recursive: true });
  const config = join(WORK_DIR, 'suites', `${w.name}.yaml`);
  const mode = w.kind === 'cached' ? 'reuse' : 'off';
  const args =
    w.kind === 'version' ? assay.versionArgs() : assay.evalArgs(w, config, join(profDir, 'out.json'), mode);
  if (!args) return { workload: w.name, command: '', markdown: 'not profiled: no command for this build' };
  say(`profiling assay on ${w.name} …`);
  if (w.provider === 'mock') await ctx.mock.stats(true);
  rmSync(join(WORK_DIR, 'runs'), { recursive: true, force: true });
  await measure({
    command: assay.command,
    args: ['--cpu-prof', '--cpu-prof-dir', profDir, ...args],
    cwd: WORK_DIR,
    env: assay.env,
    timeoutMs: ctx.timeoutMs,
    logFile: join(profDir, 'run.log'),
  });
  rmSync(join(WORK_DIR, 'runs'), { recursive: true, force: true });
  rmSync(join(profDir, 'out.json'), { force: true });
  const prof = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  const markdown = prof
    ? profileMarkdown(summariseProfile(join(profDir, prof), 15))
    : 'no profile was written';
  return { workload: w.name, command: assay.display(args), markdown };
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`bench: ${signal}, stopping`);
    cleanup();
    process.exit(130);
  });
}
process.once('exit', cleanup);

main(process.argv.slice(2)).then(
  (code) => {
    cleanup();
    process.exitCode = code;
  },
  (err: unknown) => {
    cleanup();
    say(`bench: ${(err as Error)?.stack ?? String(err)}`);
    process.exitCode = 1;
  },
);
