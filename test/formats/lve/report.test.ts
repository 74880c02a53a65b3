// TestInstance lines as `lve record` writes them (pydantic's model_dump_json), against lines
// python3 and pydantic wrote (test/fixtures/lve/pydantic-reference.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { pyJsonDumps } from '../../../src/core/python/json-dumps.js';
import { pyJsonLoads } from '../../../src/core/python/json-loads.js';
import { toPyValue } from '../../../src/core/python/str.js';
import type { JobResult } from '../../../src/core/types.js';
import { ctime, pydanticJson, testInstanceLine } from '../../../src/formats/lve/report.js';
import { fixture } from '../../support/paths.js';

const reference = JSON.parse(readFileSync(fixture('lve', 'pydantic-reference.json'), 'utf8')) as {
  cases: { args: string; response: unknown; passed: boolean; line: string }[];
};

/** A result as a run records it, for one of the reference cases. */
function resultFor(c: (typeof reference.cases)[number]): JobResult {
  const base: Omit<JobResult, 'prompt' | 'output'> = {
    key: 'k',
    caseId: 'c',
    caseIndex: 0,
    promptId: 'lve',
    promptLabel: 'lve',
    providerId: 'openai/gpt-4',
    trial: 0,
    // The loader keeps the instance's args as Python's json.dumps wrote them.
    case: { vars: {}, metadata: { args: pyJsonDumps(pyJsonLoads(c.args)) } },
    answer: { latencyMs: 1 },
    status: c.passed ? 'pass' : 'fail',
    score: c.passed ? 1 : 0,
    reason: '',
    startedAt: '2023-11-02T22:25:28.000Z',
    verdicts: [
      { type: 'lve:X', pass: c.passed, score: 1, reason: '', weight: 1, details: { passed: c.passed } },
    ],
  };
  if (typeof c.response === 'string')
    return { ...base, prompt: { text: 'q', messages: [{ role: 'user', content: 'q' }] }, output: c.response };
  if (Array.isArray(c.response))
    return {
      ...base,
      prompt: { text: 'q', messages: [{ role: 'user', content: 'q' }] },
      output: c.response[c.response.length - 1],
      answer: {
        latencyMs: 1,
        runs: c.response.map((r, i) => ({ conversation: i, repetition: 0, completions: [r] })),
      },
    };
  const outputs = c.response as Record<string, string>;
  const [first, second] = Object.keys(outputs);
  return {
    ...base,
    prompt: {
      text: 'q2',
      messages: [
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: outputs[first], variable: first },
        { role: 'user', content: 'q2' },
      ],
    },
    output: outputs[second],
    answer: {
      latencyMs: 1,
      outputs,
      runs: [{ conversation: 0, repetition: 0, completions: [outputs[first], outputs[second]], outputs }],
    },
  };
}

describe('TestInstance lines', () => {
  it('write values as pydantic does (floats, big ints, non-ASCII, escapes)', () => {
    for (const c of reference.cases) {
      const line = JSON.parse(c.line);
      assert.equal(
        pydanticJson(pyJsonLoads(c.args)),
        c.line.slice('{"args":'.length, c.line.indexOf(',"response":')),
      );
      assert.equal(pydanticJson(toPyValue(line.response)), JSON.stringify(line.response));
    }
  });
  it('lay out a recorded result as lve record does: keys, passed, the response shapes', () => {
    for (const c of reference.cases) {
      const line = testInstanceLine(resultFor(c), '9.9.9');
      assert.ok(line, c.line);
      const runInfo = /"run_info":\{[^}]*\}/;
      assert.equal(line.replace(runInfo, 'RUN_INFO'), `${c.line.replace(runInfo, 'RUN_INFO')}\n`);
      assert.match(
        line,
        /"run_info":\{"timestamp":"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}","assay":"9\.9\.9","provider":"openai\/gpt-4"\}/,
      );
    }
  });
  it('leave out results that got no verdict', () => {
    const r = { ...resultFor(reference.cases[0]), status: 'error' as const, verdicts: [] };
    assert.equal(testInstanceLine(r, '1'), undefined);
  });
  it('time.ctime() pads the day with a space', () => {
    assert.match(ctime(new Date(2023, 10, 2, 22, 25, 28).toISOString()), /^Thu Nov {2}2 22:25:28 2023$/);
  });
});
