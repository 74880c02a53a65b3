// The "echo mock" model of ÈwéBench's golden values: for each test it answers `expected`, else its
// keywords joined by ", ", else a fixed Ewe sentence — served by assay's OpenAI-compatible test server.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnswerRule } from '../../support/mock-openai.js';

/** The golden file's fixed reply for a test with neither `expected` nor keywords. */
export const FIXED_REPLY = 'Ɖe nye ŋkɔ? Mele afi sia. Ame nyo.';

interface RawTest {
  id?: string;
  prompt?: string;
  messages?: { role: string; content: string }[];
  expected?: string;
  expected_keywords?: string[];
}

/** What the echo mock answers to a test. */
export function echoReply(t: RawTest): string {
  if (t.expected) return t.expected;
  if (t.expected_keywords?.length) return t.expected_keywords.join(', ');
  return FIXED_REPLY;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Answer rules reproducing the echo mock for every test in a tests folder: each rule matches a
 * test's last user message exactly and, for multi-turn tests, its whole conversation.
 */
export function echoAnswers(testsDir: string): AnswerRule[] {
  const rules: AnswerRule[] = [];
  for (const name of readdirSync(testsDir).sort()) {
    if (!name.endsWith('.json')) continue;
    const tests = JSON.parse(readFileSync(join(testsDir, name), 'utf8')) as RawTest[];
    for (const t of tests) {
      const reply = echoReply(t);
      if (/\$\d/.test(reply))
        throw new Error(`reply of ${t.id} would be mangled by the mock's $n substitution`);
      if (t.messages) {
        const lastUser = [...t.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
        rules.push({
          match: `^${escapeRegExp(lastUser)}$`,
          conversation: `^${escapeRegExp(t.messages.map((m) => m.content).join('\n'))}$`,
          reply,
        });
      } else rules.push({ match: `^${escapeRegExp(t.prompt ?? '')}$`, reply });
    }
  }
  return rules;
}
