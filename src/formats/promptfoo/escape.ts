// Diagnostics quote what they found, escaped: a message never carries raw control characters.

const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufffd]/g;
const MAX_UNPRINTABLE = 8;

/**
 * A message with non-printable characters escaped (`\x00`); when they abound (a binary file),
 * the quoted excerpt is hopeless, so the rest is elided.
 */
export function printable(message: string): string {
  let count = 0;
  let cut = -1;
  const escaped = message.replace(UNPRINTABLE, (ch, offset: number) => {
    count++;
    if (count > MAX_UNPRINTABLE && cut === -1) cut = offset;
    const code = ch.charCodeAt(0);
    return code === 9
      ? '\\t'
      : code < 0x100
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16)}`;
  });
  if (cut === -1) return escaped;
  // Escape the kept part again (offsets refer to the original) and mark what was dropped.
  return `${printable(message.slice(0, cut))}… (binary content elided)`;
}
