/** How each measured tool is invoked: assay on the machine's Node, promptfoo on the peer's Node 22. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './paths.js';
import { type Peer, peerEnv } from './peer.js';
import type { Workload } from './workloads.js';

/** `off`: no cache; `fill`: a first run that fills the cache; `reuse`: a run served from it. */
export type CacheMode = 'off' | 'fill' | 'reuse';

/** A command-line tool under measurement. */
export interface Tool {
  name: 'assay' | 'promptfoo' | 'floor';
  command: string;
  env: NodeJS.ProcessEnv;
  /** Arguments for the cold-start row. */
  versionArgs(): string[];
  /** Arguments for one eval; undefined when the tool cannot do this cache mode. */
  evalArgs(w: Workload, config: string, out: string, cache: CacheMode): string[] | undefined;
  /** The command as shown in RESULTS.md (paths relative to the repository). */
  display(args: string[]): string;
  /** Why the tool does not run this workload (undefined: it does). */
  whyNot?(w: Workload): string | undefined;
  /** Where a run given `out` leaves its JSON output, when not at `out` itself. */
  outputOf?(out: string): string;
  /** The working directory of its runs (default: the bench's work folder). */
  cwd?: string;
}

/** The assay eval flags this build offers (the cache flags are newer than the bench). */
export interface AssayFeatures {
  noCache: boolean;
  cachePath: boolean;
}

/** Reads `assay eval --help` to see which cache flags exist. */
export function assayFeatures(bin: string): AssayFeatures {
  const help = execFileSync(process.execPath, [bin, 'eval', '--help'], { encoding: 'utf8' });
  return { noCache: help.includes('--no-cache'), cachePath: help.includes('--cache-path') };
}

/** assay, run from `bin` (the bench's snapshot of the checkout's bin/assay.js). */
export function assayTool(workDir: string, features: AssayFeatures, bin: string): Tool {
  const runsDir = join(workDir, 'runs');
  const cacheFile = join(workDir, 'cache.sqlite');
  return {
    name: 'assay',
    command: process.execPath,
    env: { ...process.env, NO_COLOR: '1' },
    versionArgs: () => [bin, '--version'],
    evalArgs(w, config, out, cache) {
      const args = [bin, 'eval', '-c', config, '-o', out, '--no-progress', '--runs-dir', runsDir];
      if (w.concurrency !== undefined) args.push('-j', String(w.concurrency));
      if (w.assayArgs) args.push(...w.assayArgs);
      if (cache === 'off') {
        if (features.noCache) args.push('--no-cache');
      } else {
        if (!features.cachePath) return undefined;
        args.push('--cache-path', cacheFile);
      }
      return args;
    },
    display: (args) => `node ${args.map(rel).join(' ')}`,
  };
}

/** promptfoo from bench/.peers/, offline (see peer.ts), never writing its database. */
export function promptfooTool(peer: Peer, workDir: string): Tool {
  return {
    name: 'promptfoo',
    command: peer.node,
    env: peerEnv(peer, join(workDir, 'pfhome')),
    versionArgs: () => [peer.entry, '--version'],
    evalArgs(w, config, out, cache) {
      const args = [peer.entry, 'eval', '-c', config, '-o', out, '--no-write'];
      if (cache === 'off') args.push('--no-cache');
      if (w.concurrency !== undefined) args.push('-j', String(w.concurrency));
      return args;
    },
    display: (args) => `NODE22 ${args.map(rel).join(' ').replace(rel(peer.entry), 'PROMPTFOO')}`,
  };
}

/**
 * The floor: `../shared/peers/floor.mjs`, the irreducible work of an echo run in one pass (read the
 * tests, render, echo, contains/icontains/regex, one results line with the same fields and ids,
 * out.json). It runs on the same Node as assay, from the repository root (it loads csv-parse and
 * js-yaml from the project's node_modules), on the very files assay reads.
 */
export function floorTool(script: string): Tool {
  return {
    name: 'floor',
    command: process.execPath,
    env: process.env,
    cwd: ROOT,
    versionArgs: () => ['-e', '0'],
    whyNot: (w) =>
      w.kind !== 'eval' || w.provider !== 'echo' ? 'the floor covers echo evals only' : undefined,
    evalArgs(w, config, out) {
      if (w.kind !== 'eval' || w.provider !== 'echo') return undefined;
      const input = w.inline ? ['--yaml', config] : ['--csv', csvOf(config)];
      return [script, ...input, '--out', `${out}.d`, '--json-out'];
    },
    outputOf: (out) => join(`${out}.d`, 'out.json'),
    display: (args) => `node ${args.map(rel).join(' ')}`,
  };
}

/** The CSV a generated config refers to (`tests: "file://tests-N.csv"`). */
function csvOf(config: string): string {
  const name = /file:\/\/([^"]+)/.exec(readFileSync(config, 'utf8'))?.[1];
  if (!name) throw new Error(`${config} refers to no CSV file`);
  return join(dirname(config), name);
}

function rel(arg: string): string {
  return arg.startsWith('/') ? relative(ROOT, arg) : arg;
}
