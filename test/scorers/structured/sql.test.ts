import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssertionSpec } from '../../../src/core/types.js';
import '../../../src/scorers/index.js';
import { getScorer } from '../../../src/scorers/registry.js';
import { MISSING_SQL_PARSER, sqlParserProblem } from '../../../src/scorers/structured/index.js';
import { type ScoreResult, ScorerInputError } from '../../../src/scorers/types.js';

async function judge(type: string, output: string, value?: unknown, negate = false): Promise<ScoreResult> {
  const spec: AssertionSpec = { type, value, ...(negate ? { negate } : {}) };
  return getScorer(type)!.score({
    output,
    outputValue: output,
    value,
    spec,
    vars: {},
    prompt: '',
    response: {},
  });
}

describe('is-sql (§5.2, node-sql-parser)', () => {
  it('passes valid SQL and fails invalid SQL, for MySQL by default', async () => {
    assert.deepEqual(await judge('is-sql', 'SELECT id, name FROM users WHERE id = 1'), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    const bad = await judge('is-sql', 'SELEC id FROM');
    assert.equal(bad.pass, false);
    assert.equal(bad.reason, 'SQL statement does not conform to the provided MySQL database syntax.');
  });

  it('parses in the dialect named by databaseType', async () => {
    const sql = 'SELECT TOP 1 id FROM users';
    assert.equal((await judge('is-sql', sql)).pass, false);
    assert.equal((await judge('is-sql', sql, { databaseType: 'TransactSQL' })).pass, true);
  });

  it('checks allowedTables and allowedColumns with node-sql-parser authorities', async () => {
    const sql = 'SELECT id FROM users';
    assert.equal((await judge('is-sql', sql, { allowedTables: ['select::null::users'] })).pass, true);
    const r = await judge('is-sql', sql, { allowedTables: ['select::null::orders'] });
    assert.equal(r.pass, false);
    assert.match(
      r.reason,
      /^SQL validation failed: authority = 'select::null::users' is required in table whiteList/,
    );
    assert.equal((await judge('is-sql', sql, { allowedColumns: ['select::null::id'] })).pass, true);
    assert.equal((await judge('is-sql', sql, { allowedColumns: ['select::null::name'] })).pass, false);
  });

  it('not-is-sql passes invalid SQL and fails valid SQL with promptfoo reason', async () => {
    assert.equal((await judge('is-sql', 'not sql at all', undefined, true)).pass, true);
    const r = await judge('is-sql', 'SELECT 1', undefined, true);
    assert.deepEqual([r.pass, r.reason], [false, 'The output SQL statement is valid']);
  });

  it('refuses a string value (promptfoo takes a mapping), at load time and when scoring', async () => {
    assert.match(
      getScorer('is-sql')!.validate!({ type: 'is-sql', value: 'MySQL' }) ?? '',
      /takes no value or a mapping/,
    );
    await assert.rejects(judge('is-sql', 'SELECT 1', 'MySQL'), ScorerInputError);
  });

  it('refuses a database type node-sql-parser does not know, at load time', () => {
    assert.match(
      getScorer('is-sql')!.validate!({ type: 'is-sql', value: { databaseType: 'Nope' } }) ?? '',
      /does not know the database type "Nope"/,
    );
    assert.equal(
      getScorer('is-sql')!.validate!({ type: 'is-sql', value: { databaseType: 'PostgresQL' } }),
      undefined,
    );
  });

  it('says how to install the parser when it is missing', () => {
    const absent = (id: string): string => {
      throw new Error(`Cannot find module '${id}'`);
    };
    assert.equal(sqlParserProblem(absent), MISSING_SQL_PARSER);
    assert.equal(
      MISSING_SQL_PARSER,
      'is-sql needs the optional dependency node-sql-parser: npm install node-sql-parser',
    );
    assert.equal(sqlParserProblem(), undefined);
  });
});

describe('contains-sql', () => {
  it('checks the first fenced code block when there is one, else the whole output', async () => {
    assert.equal((await judge('contains-sql', 'Here:\n```sql\nSELECT id FROM users\n```\nDone.')).pass, true);
    assert.equal((await judge('contains-sql', 'Here:\n```\nSELEC oops\n```')).pass, false);
    assert.equal((await judge('contains-sql', 'SELECT 1')).pass, true);
    assert.equal((await judge('contains-sql', 'no sql here')).pass, false);
  });
});
