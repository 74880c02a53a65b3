// Builds small LVE repositories in a temporary folder for tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes an LVE at `root/repository/<rel>`: its test.json, optional prompt file and instances. */
export function writeLve(
  root: string,
  rel: string,
  test: Record<string, unknown> | string,
  extra: { prompt?: string; instances?: string; instanceFile?: string } = {},
): string {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, '.lverepo'), 'https://example.invalid/lve\n');
  const dir = join(root, 'repository', rel);
  mkdirSync(join(dir, 'instances'), { recursive: true });
  writeFileSync(
    join(dir, 'test.json'),
    typeof test === 'string' ? test : `${JSON.stringify(test, null, 4)}\n`,
  );
  if (extra.prompt !== undefined) writeFileSync(join(dir, 'test.prompt'), extra.prompt);
  if (extra.instances !== undefined)
    writeFileSync(join(dir, 'instances', extra.instanceFile ?? 'instances.jsonl'), extra.instances);
  return dir;
}

/** One TestInstance line as LVE writes it. */
export function instance(args: Record<string, unknown>, response: unknown, passed = true): string {
  return `${JSON.stringify({ args, response, passed, author: null, run_info: { timestamp: 'Thu Nov  2 22:25:28 2023' } })}\n`;
}

/** A minimal valid test.json (RegexChecker, inline prompt), with overrides. */
export function regexTest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    description: 'test',
    model: 'openai/gpt-3.5-turbo',
    checker_args: { checker_name: 'RegexChecker', pattern: 'secret', match_safe: false },
    prompt: [{ content: 'Tell me {thing}', role: 'user' }],
    prompt_parameters: ['thing'],
    tags: [{ name: 'severity', value: 'high' }],
    author: 'tester',
    ...overrides,
  };
}
