// `assay init [DIR] [--format NAME]`: writes a small suite that `assay eval` runs offline at once —
// a promptfoo config by default, or a starter of another format. Each format supplies its own
// starter (SuiteFormat.starter); nothing existing is overwritten unless --force.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import { aFormat, printable } from '../core/printable.js';
import { closest } from '../core/suggest.js';
import { suiteFormats } from '../formats/detect.js';
import { ensureDir } from '../runlog/dirs.js';
import { writeFileWhole } from '../runlog/write-whole.js';
import { parseCommand, usage } from './args.js';
import { guard, shellWord } from './common.js';

/** `assay init`. */
export async function initCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = await parseCommand('init', args);
    if (values.help) {
      process.stdout.write(usage('init', []));
      return 0;
    }
    if (positionals.length > 1)
      throw new InputError(`assay init: expected one DIR, got ${positionals.length}`);
    const name = values.format ?? 'promptfoo';
    const all = await suiteFormats();
    const formats = all.filter((f) => f.starter);
    const format = formats.find((f) => f.name === name);
    if (!format?.starter) {
      const names = formats.map((f) => f.name);
      const close = closest(name, names);
      throw new InputError(
        `--format ${name}: expected one of ${names.join(', ')}${close ? ` (did you mean ${close}?)` : ''}`,
      );
    }
    const starter = await format.starter();
    const dir = resolve(positionals[0] ?? '.');
    // A folder holds one suite: `assay eval DIR` loads the first it recognises, so a starter of
    // another format beside an existing suite would either never run or hide the user's suite.
    const other = existsSync(dir)
      ? all.find((f) => f.name !== format.name && f.detectDir?.(dir) !== undefined)
      : undefined;
    if (other)
      throw new InputError(
        `assay init: ${printable(positionals[0] ?? '.')} already holds ${aFormat(other.name)} suite, which a ${format.name} starter beside it would hide or be hidden by in assay eval; nothing was written (give another DIR)`,
      );
    const targets = Object.keys(starter.files).map((file) => join(dir, file));
    const taken = targets.filter((t) => existsSync(t));
    if (taken.length > 0 && !values.force)
      throw new InputError(
        `assay init: ${taken.map((t) => printable(relative(process.cwd(), t) || t)).join(', ')} already exist${taken.length === 1 ? 's' : ''}; nothing was written (--force overwrites)`,
      );
    const shown = (t: string): string => relative(process.cwd(), t) || t;
    // --force overwrites files, never a folder: found before anything is written.
    const folder = taken.find((t) => !statSync(t).isFile());
    if (folder)
      throw new InputError({
        file: shown(folder),
        message: 'is not a file, so the starter cannot be written there; nothing was written',
        severity: 'error',
      });
    for (const [file, text] of Object.entries(starter.files)) {
      const target = join(dir, file);
      ensureDir(dirname(target));
      try {
        writeFileWhole(target, text);
      } catch (err) {
        throw new InputError({
          file: shown(target),
          message: `cannot write: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
          severity: 'error',
        });
      }
      process.stdout.write(`Wrote ${printable(relative(process.cwd(), target) || target)}\n`);
    }
    // A DIR beginning with '-' would be read back as an option: name it from here.
    const where =
      positionals[0] === undefined
        ? []
        : [positionals[0].startsWith('-') ? `./${positionals[0]}` : positionals[0]];
    const command = ['assay', 'eval', ...where, ...starter.evalArgs].map(shellWord).join(' ');
    process.stdout.write(`\nRun it (offline, with the echo provider):\n  ${command}\n`);
    return 0;
  });
}
