// node-sql-parser is an optional dependency (it is large): loaded on first use, and a suite that
// needs it while it is absent is refused at load time with the command that installs it.
import { createRequire } from 'node:module';

/** The part of node-sql-parser's Parser that the SQL scorers use. */
export interface SqlParser {
  astify(sql: string, opt: { database: string }): unknown;
  whiteListCheck(sql: string, list: string[], opt: { database: string; type: 'table' | 'column' }): unknown;
}

const MODULE = 'node-sql-parser';
const require = createRequire(import.meta.url);
let parser: SqlParser | undefined;

/** The message for a suite that needs the parser when it is not installed. */
export const MISSING_SQL_PARSER = `is-sql needs the optional dependency ${MODULE}: npm install ${MODULE}`;

/**
 * Why SQL cannot be checked here (the package is missing), or undefined. `resolve` finds a module
 * by name; tests pass one that fails to see the message a user without the package gets.
 */
export function sqlParserProblem(resolve: (id: string) => string = require.resolve): string | undefined {
  try {
    resolve(MODULE);
    return undefined;
  } catch {
    return MISSING_SQL_PARSER;
  }
}

/** The shared parser, loaded on first use. Throws when the package is missing. */
export function sqlParser(): SqlParser {
  if (!parser) {
    const mod = require(MODULE) as { Parser: new () => SqlParser };
    parser = new mod.Parser();
  }
  return parser;
}

/** Whether node-sql-parser knows a database dialect (it names them case-insensitively). */
export function knownDatabase(database: string): boolean {
  try {
    sqlParser().astify('SELECT 1', { database });
    return true;
  } catch (err) {
    return !/is not supported/i.test(err instanceof Error ? err.message : String(err));
  }
}
