/** `node dist/bench/cpuprofile.js FILE.cpuprofile [TOP]`: prints a profile's top self-time functions and areas. */
import { profileMarkdown, summariseProfile } from './profile.js';

const [file, top] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node dist/bench/cpuprofile.js FILE.cpuprofile [TOP]\n');
  process.exitCode = 2;
} else {
  process.stdout.write(`${profileMarkdown(summariseProfile(file, top ? Number(top) : 25))}\n`);
}
