// Registers the SQL scorers (their parser, an optional dependency, loads on first use).
import { registerScorer } from '../registry.js';
import { containsSqlScorer, isSqlScorer } from './sql.js';

registerScorer(isSqlScorer);
registerScorer(containsSqlScorer);

export { MISSING_SQL_PARSER, sqlParserProblem } from './parser.js';
