#!/usr/bin/env node
// Installs what the report tests drive, when it is missing: Debian's Chromium (the HTML report is
// tested in a real browser, through playwright-core) and libxml2-utils (xmllint checks the JUnit
// XML against its schema). Uses apt-get, as root or through sudo. Where neither works, it says so
// and the tests that need them are skipped with the same message; everything else still runs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.ASSAY_CHROMIUM ?? '/usr/bin/chromium';
const has = (cmd) => !spawnSync(cmd, ['--version'], { stdio: 'ignore' }).error;
const missing = [];
if (!existsSync(CHROMIUM)) missing.push('chromium');
if (!has('xmllint')) missing.push('libxml2-utils');
if (missing.length === 0) process.exit(0);

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const sudo = !root && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
if (!has('apt-get') || (!root && !sudo)) {
  console.log(
    `test tools: ${missing.join(' and ')} not installed and cannot be installed here (no apt-get, or not root); the browser and schema tests will be skipped`,
  );
  process.exit(0);
}
const run = (args) => {
  const cmd = root ? args : ['sudo', '-n', ...args];
  console.log(`test tools: ${cmd.join(' ')}`);
  return spawnSync(cmd[0], cmd.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  }).status;
};
if (
  run(['apt-get', 'update']) !== 0 ||
  run(['apt-get', 'install', '-y', '--no-install-recommends', ...missing]) !== 0
)
  console.log(
    `test tools: could not install ${missing.join(' and ')}; the browser and schema tests will be skipped`,
  );
