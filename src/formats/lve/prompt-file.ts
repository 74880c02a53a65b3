// `.prompt` files as LVE reads them (lve/prompt.py `get_prompt`), traps included: a file whose
// every line is a JSON object is JSONL (one message a line); a blank line breaks that, and the
// whole file then becomes one user message holding the raw text, as upstream does.
import type { LveMessage } from './messages.js';
import { checkMessage } from './messages.js';

/** What a `.prompt` file holds: messages, or why LVE cannot read it; warnings about upstream traps. */
export interface PromptFileResult {
  messages?: LveMessage[];
  error?: { message: string; line?: number };
  warnings: { message: string; line?: number }[];
}

/** Parses a `.prompt` file's text with LVE's rules. */
export function parsePromptFile(text: string): PromptFileResult {
  const warnings: PromptFileResult['warnings'] = [];
  if (text.trim() === '<please fill in>')
    return { error: { message: 'the prompt file is still "<please fill in>"' }, warnings };
  // Python's readlines(): lines keep their newline; json.loads ignores surrounding whitespace.
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const parsed: unknown[] = [];
  let allJson = lines.length > 0;
  for (const line of lines) {
    try {
      parsed.push(JSON.parse(line));
    } catch {
      allJson = false;
      break;
    }
  }
  if (allJson) {
    const scalar = parsed.findIndex((v) => typeof v !== 'object' || v === null || Array.isArray(v));
    if (scalar >= 0)
      return {
        error: {
          message:
            'every line parses as JSON but this one is not an object (LVE fails with an AssertionError here)',
          line: scalar + 1,
        },
        warnings,
      };
    const messages: LveMessage[] = [];
    for (let i = 0; i < parsed.length; i++) {
      const checked = checkMessage(parsed[i]);
      if (typeof checked === 'string') return { error: { message: checked, line: i + 1 }, warnings };
      messages.push(checked);
    }
    return { messages, warnings };
  }
  let whole: unknown;
  let wholeIsJson = false;
  try {
    whole = JSON.parse(text);
    wholeIsJson = true;
  } catch {
    wholeIsJson = false;
  }
  if (wholeIsJson) {
    // Upstream tests isinstance(json, dict) (the module), so it always raises here; assay reads
    // one message object as the documentation intends, and says that LVE itself cannot.
    if (typeof whole === 'object' && whole !== null && !Array.isArray(whole)) {
      const checked = checkMessage(whole);
      if (typeof checked === 'string') return { error: { message: checked, line: 1 }, warnings };
      warnings.push({
        message:
          'a JSON message object written over several lines: assay reads it as one message, but LVE itself fails on it ("Unsupported JSON format"); write it on one line',
        line: 1,
      });
      return { messages: [checked], warnings };
    }
    return {
      error: {
        message: 'Unsupported JSON format: a prompt file that is one JSON value must be a message object',
        line: 1,
      },
      warnings,
    };
  }
  const blank = lines.findIndex((l) => l.trim() === '');
  const jsonish = lines
    .filter((l) => l.trim() !== '')
    .every((l) => {
      try {
        const v = JSON.parse(l);
        return typeof v === 'object' && v !== null && !Array.isArray(v);
      } catch {
        return false;
      }
    });
  if (blank >= 0 && jsonish && lines.some((l) => l.trim() !== ''))
    warnings.push({
      message:
        'this looks like JSONL (one message a line) but has a blank line, so LVE — and assay, to match it — reads the whole file as one user message holding the raw text; remove the blank line',
      line: blank + 1,
    });
  return { messages: [{ role: 'user', content: text, variable: null, image_url: null }], warnings };
}
