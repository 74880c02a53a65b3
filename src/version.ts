import { assayPackage } from './package-root.js';

/** assay's version, from its package.json (read once). */
export function assayVersion(): string {
  return assayPackage().version;
}
