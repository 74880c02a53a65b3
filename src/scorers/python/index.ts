// Registers the scorers with Python's string and JSON semantics. Importing this module is enough.
import { registerScorer } from '../registry.js';
import { pyIsJsonScorer } from './json.js';
import { pyContainsAnyScorer, pyContainsScorer, pyEqualsScorer } from './text.js';

for (const scorer of [pyEqualsScorer, pyContainsScorer, pyContainsAnyScorer, pyIsJsonScorer])
  registerScorer(scorer);
