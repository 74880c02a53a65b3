// Where LVEs are looked for.

/** Folders never searched for LVEs (an LVE's own sub-folders, tooling). */
export const SKIPPED_DIRS = new Set(['node_modules', 'instances', 'checker', '.git', '.assay']);
