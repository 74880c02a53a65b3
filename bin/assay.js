#!/usr/bin/env -S node --
// assay's executable: a thin shim over the compiled CLI (run `npm run build` first in a checkout).
import { main } from '../dist/src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`assay: ${err?.stack ?? err}\n`);
    process.exitCode = 3;
  },
);
