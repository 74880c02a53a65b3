/** Writes the promptfoo suites both tools run: a YAML config plus a CSV of tests. */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderKind } from './workloads.js';

/** The single prompt: echoed back by both providers, so every assertion below passes. */
const PROMPT = 'Write one line about {{topic}}.';

/** The CSV of `n` tests: one var and three passing assertions (contains, icontains, regex) each. */
export function writeTestsCsv(dir: string, n: number): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `tests-${n}.csv`);
  if (existsSync(file)) return file;
  const lines = ['topic,__expected1,__expected2,__expected3'];
  for (let i = 0; i < n; i++) {
    const topic = `subject ${i} of ${n}`;
    lines.push(`${topic},contains:${topic},icontains:WRITE ONE LINE,regex:about subject \\d+ of \\d+\\.$`);
  }
  // Written under a temporary name first, so an interrupted bench never leaves a short file behind.
  writeFileSync(`${file}.tmp`, `${lines.join('\n')}\n`);
  renameSync(`${file}.tmp`, file);
  return file;
}

/** What a suite runs against. */
export interface SuiteTarget {
  provider: ProviderKind;
  /** The mock's base URL (`http://127.0.0.1:PORT`), needed for the `mock` provider. */
  mockUrl?: string;
  /** Fault settings for the mock's path prefix, '' for none. */
  faults: string;
  /** Write the tests inline in the config instead of referring to the CSV. */
  inline?: boolean;
}

/** Writes `<name>.yaml` referring to the shared CSV of `n` tests; returns the config's path. */
export function writeSuite(dir: string, name: string, n: number, target: SuiteTarget): string {
  const tests = target.inline
    ? inlineTests(n)
    : `tests: ${JSON.stringify(`file://${writeTestsCsv(dir, n).split('/').at(-1)}`)}`;
  const provider =
    target.provider === 'echo'
      ? '  - id: echo\n'
      : [
          '  - id: openai:chat:gpt-4o-mini',
          '    config:',
          `      apiBaseUrl: ${JSON.stringify(baseUrl(target))}`,
          '      apiKey: bench-mock-key',
          '',
        ].join('\n');
  const yaml = [
    `description: ${JSON.stringify(`bench ${name}: ${n} tests`)}`,
    'prompts:',
    `  - ${JSON.stringify(PROMPT)}`,
    'providers:',
    provider.trimEnd(),
    tests,
    '',
  ].join('\n');
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

/** The CSV's tests written inline as YAML (the same vars and assertions). */
function inlineTests(n: number): string {
  const lines = ['tests:'];
  for (let i = 0; i < n; i++) {
    const topic = JSON.stringify(`subject ${i} of ${n}`);
    lines.push(
      `  - vars:`,
      `      topic: ${topic}`,
      '    assert:',
      `      - type: contains`,
      `        value: ${topic}`,
      '      - type: icontains',
      '        value: WRITE ONE LINE',
      '      - type: regex',
      `        value: 'about subject \\d+ of \\d+\\.$'`,
    );
  }
  return lines.join('\n');
}

function baseUrl(target: SuiteTarget): string {
  if (!target.mockUrl) throw new Error('a mock suite needs the mock URL');
  return target.faults ? `${target.mockUrl}/_/${target.faults}/v1` : `${target.mockUrl}/v1`;
}
