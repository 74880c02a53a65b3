/**
 * `node --import ./startup-count.js …`: counts the modules a command loads. ES modules are seen by
 * the `load` hook of `startup-hooks.js`; CommonJS files (not seen by hooks on Node 20) are read from
 * `require.cache` at exit. Both lists go to the file named by ASSAY_STARTUP_COUNT, one path a line.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.ASSAY_STARTUP_COUNT;
if (file) {
  register(new URL('./startup-hooks.js', import.meta.url), { data: { file } });
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    const cjs = Object.keys(require.cache).map((p) => `file://${p}`);
    if (cjs.length > 0) appendFileSync(file, `${cjs.join('\n')}\n`);
  });
}
