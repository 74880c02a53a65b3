import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { InputError } from '../../../src/core/errors.js';
import type { AssertionSpec, Case, Diagnostic, Suite } from '../../../src/core/types.js';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { displayPath } from '../../../src/formats/promptfoo/source.js';
import { cleanEnv, runCli } from '../../support/cli.js';
import { fixture } from '../../support/paths.js';
import { writeFiles } from '../../support/runs.js';

export const ENV = { ASSAY_TEST_MODEL: 'gpt-4o-mini' };

/** Loads a fixture config (`test/fixtures/promptfoo/<dir>/<file>`). */
export function loadFixture(dir: string, file = 'promptfooconfig.yaml'): Promise<Suite> {
  return loadPromptfooSuite(fixture('promptfoo', dir, file), { env: ENV });
}

/** The path of a fixture file as diagnostics show it. */
export function shown(...parts: string[]): string {
  return displayPath(fixture('promptfoo', ...parts));
}

/** The diagnostics of a load that must fail. */
export async function loadErrors(path: string): Promise<Diagnostic[]> {
  try {
    await loadPromptfooSuite(path, { env: ENV });
  } catch (err) {
    assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
    return err.diagnostics;
  }
  assert.fail(`expected ${path} to fail to load`);
}

/** `file:line:col message` lines, for readable assertions. */
export function located(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.file}:${d.line ?? ''}:${d.col ?? ''} ${d.message}`);
}

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Writes files into a fresh folder and returns the path of its `promptfooconfig.yaml`. */
export function writeSuite(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'assay-pf-'));
  temps.push(dir);
  return join(writeFiles(dir, files), 'promptfooconfig.yaml');
}

/** Loads a config given as text (plus any other files). */
export function loadText(config: string, files: Record<string, string> = {}): Promise<Suite> {
  return loadPromptfooSuite(writeSuite({ 'promptfooconfig.yaml': config, ...files }), { env: ENV });
}

/** The diagnostics of a config given as text that must fail to load. */
export function errorsOf(config: string, files: Record<string, string> = {}): Promise<Diagnostic[]> {
  return loadErrors(writeSuite({ 'promptfooconfig.yaml': config, ...files }));
}

/** Assertions without their source positions, for deepEqual. */
export function plain(asserts: AssertionSpec[]): Omit<AssertionSpec, 'source'>[] {
  return asserts.map(({ source: _s, grader, ...rest }) => {
    if (!grader) return rest;
    const { source: _g, ...g } = grader;
    return { ...rest, grader: g };
  });
}

/** A case's vars, for compact comparisons. */
export function varsOf(cases: Case[]): Record<string, unknown>[] {
  return cases.map((c) => c.vars);
}

/**
 * `assay eval` of a copy (in `dir`) of a fixture folder that holds promptfoo 0.123.1's recorded
 * answers (`promptfoo-0.123.1.json`), writing promptfoo's results JSON: the exit code and output,
 * the recorded answers, and assay's results in test order.
 */
export async function evalAgainstRecorded<R extends { testIdx: number }>(
  name: string,
  dir: string,
): Promise<{ code: number; output: string; recorded: unknown; results: R[] }> {
  cpSync(fixture('promptfoo', name), dir, { recursive: true });
  const recorded: unknown = JSON.parse(readFileSync(join(dir, 'promptfoo-0.123.1.json'), 'utf8'));
  const run = await runCli(
    ['eval', '--no-progress', '--no-cache', '-o', 'pf.json', '--output-format', 'promptfoo'],
    { cwd: dir, env: cleanEnv },
  );
  const results =
    run.code === 0 || run.code === 1
      ? (JSON.parse(readFileSync(join(dir, 'pf.json'), 'utf8')).results.results as R[]).sort(
          (a, b) => a.testIdx - b.testIdx,
        )
      : [];
  return { code: run.code, output: run.stdout + run.stderr, recorded, results };
}
