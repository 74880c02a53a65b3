// promptfoo's `is-sql` and `contains-sql` (spec §5.2): the output parses as SQL of a dialect
// (node-sql-parser, MySQL by default), optionally touching only allowed tables and columns.
import { isRecord } from '../../core/records.js';
import type { AssertionSpec } from '../../core/types.js';
import { type ScoreInput, type ScoreResult, type Scorer, ScorerInputError } from '../types.js';
import { describeShape, hasTemplate, writtenType } from '../util.js';
import { knownDatabase, sqlParser, sqlParserProblem } from './sql-parser.js';

interface SqlOptions {
  database: string;
  allowedTables?: string[];
  allowedColumns?: string[];
}

/** Why an is-sql value is unusable (promptfoo accepts none, or a mapping), or undefined. */
function valueProblem(type: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (!isRecord(value))
    return `${type} takes no value or a mapping {databaseType, allowedTables, allowedColumns}, got ${describeShape(value)}`;
  if (value.databaseType !== undefined && typeof value.databaseType !== 'string')
    return `${type}: databaseType must be a string`;
  for (const key of ['allowedTables', 'allowedColumns'] as const) {
    const list = value[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((x) => typeof x === 'string')))
      return `${type}: ${key} must be a list of strings (node-sql-parser authorities such as "select::null::users")`;
  }
  return undefined;
}

function options(value: unknown): SqlOptions {
  const v = isRecord(value) ? value : {};
  const o: SqlOptions = {
    database: typeof v.databaseType === 'string' && v.databaseType ? v.databaseType : 'MySQL',
  };
  if (Array.isArray(v.allowedTables)) o.allowedTables = v.allowedTables as string[];
  if (Array.isArray(v.allowedColumns)) o.allowedColumns = v.allowedColumns as string[];
  return o;
}

const SELECT_MODIFIERS = '(?:all|distinct)';
const MYSQL_SELECT_MODIFIERS =
  '(?:all|distinct(?:row)?|high_priority|straight_join|sql_(?:big_result|buffer_result|cache|calc_found_rows|no_cache|small_result))';
/** `SELECT a b FROM`: two bare identifiers in a row, a comma the parser would forgive as an alias. */
function missingCommaPattern(modifiers: string): RegExp {
  const id = '[A-Za-z_][A-Za-z0-9_]*';
  return new RegExp(`\\bselect\\s+(?:${modifiers}\\s+)*(?!${modifiers}\\b)${id}\\s+${id}\\s+from\\b`, 'i');
}
const MISSING_COMMA = missingCommaPattern(SELECT_MODIFIERS);
const MYSQL_MISSING_COMMA = missingCommaPattern(MYSQL_SELECT_MODIFIERS);
const MYSQL_FAMILY = new Set(['MySQL', 'MariaDB']);
const BRACKET_IDENTIFIERS = new Set(['TransactSQL', 'Sqlite']);

/** Where the quoted text starting at `start` ends (doubled quotes and backslash escapes skipped). */
function quotedEnd(sql: string, start: number, quote: string): number {
  const closing = quote === '[' ? ']' : quote;
  let i = start + 1;
  while (i < sql.length) {
    if (closing !== ']' && sql[i] === '\\') {
      i += 2;
      continue;
    }
    if (sql[i] === closing) {
      if (sql[i + 1] === closing) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}

/** The SQL with strings and quoted names replaced by ` ? `, and comments by a space. */
function withoutQuotedText(sql: string, database: string): string {
  const brackets = BRACKET_IDENTIFIERS.has(database);
  const chunks: string[] = [];
  let plainStart = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    let end: number | undefined;
    let replacement = ' ';
    if (c === "'" || c === '"' || c === '`' || (c === '[' && brackets)) {
      end = quotedEnd(sql, i, c);
      replacement = ' ? ';
    } else if ((c === '-' && sql[i + 1] === '-') || c === '#') {
      end = i + 1;
      while (end < sql.length && sql[end] !== '\r' && sql[end] !== '\n') end++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      end = close === -1 ? sql.length : close + 2;
    } else if (c === '$') {
      const delimiter = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i))?.[0];
      if (delimiter) {
        const close = sql.indexOf(delimiter, i + delimiter.length);
        end = close === -1 ? sql.length : close + delimiter.length;
        replacement = ' ? ';
      }
    }
    if (end === undefined) {
      i++;
      continue;
    }
    chunks.push(sql.slice(plainStart, i), replacement);
    i = end;
    plainStart = i;
  }
  chunks.push(sql.slice(plainStart));
  return chunks.join('');
}

/**
 * promptfoo 0.123.1's checks before the parser, each a syntax failure: empty (or blank) output, an
 * odd number of backticks, `SELECT a b FROM` (a likely missing comma), and MySQL's absent
 * `generate_series`.
 */
function heuristicFailures(sql: string, database: string): number {
  const text = sql.trim();
  let failures = 0;
  if (text.length === 0) failures++;
  if ((text.match(/`/g)?.length ?? 0) % 2 !== 0) failures++;
  const pattern = MYSQL_FAMILY.has(database) ? MYSQL_MISSING_COMMA : MISSING_COMMA;
  if (pattern.test(withoutQuotedText(text, database))) failures++;
  if (database === 'MySQL' && /\bgenerate_series\s*\(/i.test(text)) failures++;
  return failures;
}

/** Judges SQL text with promptfoo's rules, negation included (allow-list failures pass `not-is-sql`). */
function judge(sql: string, value: unknown, negate: boolean, type: string): ScoreResult {
  const problem = valueProblem(type, value);
  if (problem) throw new ScorerInputError(problem);
  const o = options(value);
  const parser = sqlParser();
  const syntax = `SQL statement does not conform to the provided ${o.database} database syntax.`;
  const reasons: string[] = Array.from({ length: heuristicFailures(sql, o.database) }, () => syntax);
  let pass: boolean;
  try {
    parser.astify(sql, { database: o.database });
    pass = !negate;
  } catch {
    pass = negate;
    reasons.push(syntax);
  }
  if (reasons.length > 0) pass = negate;
  const lists: [string[] | undefined, 'table' | 'column'][] = [
    [o.allowedTables, 'table'],
    [o.allowedColumns, 'column'],
  ];
  for (const [list, kind] of lists) {
    if (!list) continue;
    try {
      parser.whiteListCheck(sql, list, { database: o.database, type: kind });
    } catch (err) {
      pass = negate;
      reasons.push(`SQL validation failed: ${err instanceof Error ? err.message : String(err)}.`);
    }
  }
  if (negate && !pass && reasons.length === 0) reasons.push('The output SQL statement is valid');
  return { pass, score: pass ? 1 : 0, reason: pass ? 'Assertion passed' : reasons.join(' ') };
}

/** Load-time checks shared by both types: the package is installed, the value and dialect are usable. */
function validate(type: string) {
  return (spec: AssertionSpec): string | undefined => {
    const missing = sqlParserProblem();
    if (missing) return missing;
    const written = writtenType(type, spec);
    if (typeof spec.value === 'string' && hasTemplate(spec.value)) return undefined;
    const problem = valueProblem(written, spec.value);
    if (problem) return problem;
    const { database } = options(spec.value);
    if (!knownDatabase(database))
      return `${written}: node-sql-parser does not know the database type "${database}"`;
    return undefined;
  };
}

/** A fenced code block (optionally tagged `sql`) in the text, as promptfoo finds it. */
const FENCED_SQL = /```(?:sql)?([^`]+)```/;

/** `is-sql`: the whole output is SQL. */
export const isSqlScorer: Scorer = {
  type: 'is-sql',
  description:
    'the output is valid SQL (node-sql-parser; value {databaseType, allowedTables, allowedColumns})',
  validate: validate('is-sql'),
  score: (input: ScoreInput) =>
    judge(input.output, input.value, input.spec.negate === true, writtenType('is-sql', input.spec)),
};

/** `contains-sql`: the output, or the first fenced code block in it, is SQL. */
export const containsSqlScorer: Scorer = {
  type: 'contains-sql',
  description: 'the output or a fenced code block in it is valid SQL (same value as is-sql)',
  validate: validate('contains-sql'),
  score: (input: ScoreInput) => {
    const block = FENCED_SQL.exec(input.output);
    const sql = block ? block[1].trim() : input.output;
    return judge(sql, input.value, input.spec.negate === true, writtenType('contains-sql', input.spec));
  },
};
