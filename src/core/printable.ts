// Text from models, suites and servers is untrusted: written to a terminal raw, an escape sequence
// can clear the screen, retitle the window, forge a hyperlink (OSC 8) or ring the bell, with or
// without colour. Everything assay prints that it did not write itself goes through here.

/**
 * Control characters (C0 but tab, DEL, C1) and the bidirectional overrides that reorder what a
 * reader sees, shown as visible escapes (`\x1b`, `\u202e`); everything else unchanged. With
 * `keepNewlines`, `\n` stays (multi-line messages).
 */
export function printable(text: string, keepNewlines = false): string {
  return text.replace(UNSAFE, (ch) => {
    if (keepNewlines && ch === '\n') return ch;
    const code = ch.codePointAt(0) ?? 0;
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// C0 controls except tab, DEL and C1 controls, and the Unicode bidi embedding/override/isolate marks.
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `a promptfoo`, `an apastra`, `an inspect`: the indefinite article a format name takes. */
export function aFormat(name: string): string {
  return `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`;
}
