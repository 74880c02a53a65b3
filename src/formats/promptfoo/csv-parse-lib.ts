// csv-parse, loaded on first use rather than at start-up: the plain splitter (csv-fast.ts) reads
// most test files whole, and a suite without CSV needs neither (10 files of the package's ES
// module build otherwise load with every promptfoo suite). The package's CommonJS build, which
// `require` gives, is one file built from the same source.
import { createRequire } from 'node:module';

type SyncLib = typeof import('csv-parse/sync');
type StreamLib = typeof import('csv-parse');

const load = createRequire(import.meta.url);
let syncLib: SyncLib | undefined;
let streamLib: StreamLib | undefined;

/** csv-parse's `parse` of a whole text (`csv-parse/sync`): its records (or columns objects). */
export function parseCsvSync(text: string, options: import('csv-parse/sync').Options): unknown {
  syncLib ??= load('csv-parse/sync') as SyncLib;
  return syncLib.parse(text, options);
}

/** csv-parse's chunk-at-a-time `Parser`. */
export function csvParser(
  options: ConstructorParameters<StreamLib['Parser']>[0],
): InstanceType<StreamLib['Parser']> {
  streamLib ??= load('csv-parse') as StreamLib;
  return new streamLib.Parser(options);
}
