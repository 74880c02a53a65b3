/**
 * Differential check against promptfoo: runs each fixture under test/fixtures/promptfoo/last-mile/
 * with promptfoo 0.123.1 and with assay (echo provider, offline), prints where their verdicts
 * differ, and with --record writes promptfoo's verdicts to the fixture's expected.json (which the
 * tests then hold assay to, without promptfoo installed).
 *
 *   node dist/bench/pf-diff.js [--record] [--peers DIR] [NAME…]
 *
 * The peer (Node 22 + promptfoo) is installed under DIR (default bench/.peers) when missing.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fixtures, verdictRows } from '../test/support/pf-verdicts.js';
import { ensurePeer, peerEnv } from './peer.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const fixtureRoot = join(root, 'test', 'fixtures', 'promptfoo', 'last-mile');

async function tryRun(file: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }) {
  try {
    await run(file, args, { ...opts, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    // Exit code 100 is promptfoo's "some tests failed"; 1 and 3 (errors) are assay's. The output file says the rest.
    const code = (err as { code?: number }).code;
    if (code !== 100 && code !== 1 && code !== 3) throw err;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const record = argv.includes('--record');
  const peersAt = argv.indexOf('--peers');
  const peersDir = peersAt >= 0 ? resolve(argv[peersAt + 1]) : join(root, 'bench', '.peers');
  const names = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--peers');
  const peer = await ensurePeer(peersDir, (line) => console.error(line));
  let differing = 0;
  for (const fx of fixtures(fixtureRoot)) {
    if (names.length > 0 && !names.includes(fx.name)) continue;
    const scratch = mkdtempSync(join(tmpdir(), `pf-diff-${fx.name}-`));
    try {
      const env = { ...peerEnv(peer, join(scratch, 'pf-home')), NO_COLOR: '1', ...fx.env };
      const pfDir = join(scratch, 'pf');
      cpSync(fx.dir, pfDir, { recursive: true });
      const pfArgs = ['eval', ...fx.args, '--no-cache', '--no-write', '--no-progress-bar', '-o', 'out.json'];
      await tryRun(peer.node, [peer.entry, ...pfArgs], { cwd: pfDir, env });
      const theirs = verdictRows(JSON.parse(readFileSync(join(pfDir, 'out.json'), 'utf8')), fx.fields);
      const assayDir = join(scratch, 'assay');
      cpSync(fx.dir, assayDir, { recursive: true });
      const assayArgs = ['eval', ...fx.args, '--no-cache', '--no-progress', '--output-format', 'promptfoo'];
      await tryRun(process.execPath, [join(root, 'bin', 'assay.js'), ...assayArgs, '-o', 'out.json'], {
        cwd: assayDir,
        env: { ...process.env, ...fx.env },
      });
      const ours = verdictRows(JSON.parse(readFileSync(join(assayDir, 'out.json'), 'utf8')), fx.fields);
      const same = JSON.stringify(theirs) === JSON.stringify(ours);
      if (!same) differing++;
      console.log(`${same ? 'same' : 'DIFFERENT'}  ${fx.name}  (${theirs.length} rows)`);
      if (!same) console.log(`  promptfoo: ${JSON.stringify(theirs)}\n  assay:     ${JSON.stringify(ours)}`);
      if (record) writeFileSync(join(fx.dir, 'expected.json'), `${JSON.stringify(theirs, null, 2)}\n`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  process.exitCode = differing > 0 ? 1 : 0;
}

await main();
