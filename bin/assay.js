#!/usr/bin/env -S node --
// assay's executable: a thin shim over the bundled CLI (run `npm run build` first in a checkout).
import { main } from '../dist/bundle/cli.js';

let settled = false;
// Node runs out of work while the command still waits: something it waited on can never finish.
// Never end silently with exit 0 then.
process.on('beforeExit', () => {
  if (settled) return;
  settled = true;
  process.stderr.write(
    'assay: internal error: the command stopped before it finished (it was waiting on work that can no longer end)\n',
  );
  process.exitCode = 3;
});

main(process.argv.slice(2)).then(
  (code) => {
    settled = true;
    process.exitCode = code;
  },
  (err) => {
    settled = true;
    process.stderr.write(`assay: ${err?.stack ?? err}\n`);
    process.exitCode = 3;
  },
);
