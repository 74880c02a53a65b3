// Registers the deterministic scorers (promptfoo's semantics). Importing this module is enough.
import { registerScorer } from '../registry.js';
import type { Scorer } from '../types.js';
import { containsScorers } from './contains.js';
import { equalsScorer } from './equals.js';
import { jsonScorers } from './json.js';
import { regexScorer } from './regex.js';

/** The deterministic scorers, in registration order. */
export const deterministicScorers: readonly Scorer[] = [
  equalsScorer,
  ...containsScorers,
  regexScorer,
  ...jsonScorers,
];

for (const scorer of deterministicScorers) registerScorer(scorer);

export { extractJsonObjects } from './json-extract.js';
export { parseCommaList } from './util.js';
