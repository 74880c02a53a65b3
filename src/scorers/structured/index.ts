// Registers the scorers that parse the output as a structure and judge that: JSON (is-json,
// contains-json, JSON Schema, Python's json.loads), XML, HTML and SQL.
import { registerScorer } from '../registry.js';
import type { Scorer } from '../types.js';
import { htmlScorers } from './html.js';
import { jsonScorers } from './json.js';
import { pyIsJsonScorer } from './python-json.js';
import { containsSqlScorer, isSqlScorer } from './sql.js';
import { xmlScorers } from './xml.js';

/** The structured-output scorers, in registration order. */
export const structuredScorers: readonly Scorer[] = [
  ...jsonScorers,
  pyIsJsonScorer,
  ...xmlScorers,
  ...htmlScorers,
  isSqlScorer,
  containsSqlScorer,
];

for (const scorer of structuredScorers) registerScorer(scorer);

export { extractJsonObjects } from './json-extract.js';
export { MISSING_SQL_PARSER, sqlParserProblem } from './sql-parser.js';
