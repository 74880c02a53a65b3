// The run log is a contract: manifest.json carries `schemaVersion` and every results.jsonl line a
// short `v`, so a reader knows what it is reading. This assay reads every version up to its own
// (0 is a run written before versions existed) and refuses a newer one, which it cannot describe.
import { InputError } from '../core/errors.js';

/** The run-log version this assay writes (schema/run-manifest.schema.json, schema/run-result.schema.json). */
export const RUNLOG_VERSION = 3;

/** Refuses a version this assay does not know; `undefined` (a run written before versions) is 0. */
export function checkVersion(found: unknown, where: { file: string; line?: number }, what: string): void {
  if (found === undefined) return;
  if (typeof found !== 'number' || !Number.isInteger(found) || found < 0)
    throw new InputError({
      ...where,
      severity: 'error',
      message: `${what} ${JSON.stringify(found)} is not a version number`,
    });
  if (found > RUNLOG_VERSION)
    throw new InputError({
      ...where,
      severity: 'error',
      message: `${what} ${found} was written by a newer assay; this assay reads run logs up to version ${RUNLOG_VERSION}: upgrade assay to read it`,
    });
}

/** The prefix every results line starts with: its version, first, so a reader sees it at once. */
export const LINE_PREFIX = `{"v":${RUNLOG_VERSION},`;
