import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface WordSuiteOptions {
  /** Number of tests (one CSV row each, var `word` = `w<i>`). */
  tests: number;
  /** The OpenAI-compatible base URL the provider calls. */
  baseUrl: string;
  /** The prompt; the mock echoes it, so `contains: w<i>` passes. */
  prompt: string;
  model?: string;
  /** Rows for which the test expects a word the echo will not contain (a designed failure). */
  fails?: (i: number) => boolean;
  /** Add `__description` = `row <i>`. */
  describe?: boolean;
  /** More provider config (e.g. temperature). */
  providerConfig?: Record<string, unknown>;
}

/**
 * Writes a promptfoo suite of word-echo tests against an OpenAI-compatible server: the shape
 * every CLI test of runs, faults, caching and resume needs. Returns the suite folder.
 */
export function writeWordSuite(dir: string, o: WordSuiteOptions): string {
  mkdirSync(dir, { recursive: true });
  const rows = [o.describe ? 'word,__expected,__description' : 'word,__expected'];
  for (let i = 0; i < o.tests; i++) {
    const expected = o.fails?.(i) ? `contains:absent${i}` : `contains:w${i}`;
    rows.push(o.describe ? `w${i},${expected},row ${i}` : `w${i},${expected}`);
  }
  writeFileSync(join(dir, 'tests.csv'), `${rows.join('\n')}\n`);
  const config = JSON.stringify({ apiBaseUrl: o.baseUrl, ...o.providerConfig });
  writeFileSync(
    join(dir, 'promptfooconfig.yaml'),
    `prompts: ['${o.prompt} {{word}}']\nproviders:\n  - id: openai:chat:${o.model ?? 'm'}\n    config: ${config}\ntests: file://tests.csv\n`,
  );
  return dir;
}
