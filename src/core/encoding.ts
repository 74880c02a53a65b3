// Suites are UTF-8 text. A file saved as UTF-16 (Windows editors, PowerShell's `>`) decodes to
// text full of NULs that no parser explains; it is recognised here so the message can say what to do.

/** Why these bytes are not UTF-8 text a suite can be, when they are UTF-16; undefined otherwise. */
export function utf16Problem(bytes: Uint8Array): string | undefined {
  const bom =
    bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe
      ? 'UTF-16 LE'
      : bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'UTF-16 BE'
        : undefined;
  if (bom) return `the file is ${bom} text; save it as UTF-8`;
  // No byte-order mark: ASCII text in UTF-16 has a NUL in every other byte.
  const n = Math.min(bytes.length, 64) & ~1;
  if (n < 4) return undefined;
  let evenNuls = 0;
  let oddNuls = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenNuls++;
    if (bytes[i + 1] === 0) oddNuls++;
  }
  const half = n / 2;
  if (oddNuls >= half * 0.9 && evenNuls === 0) return 'the file is UTF-16 LE text; save it as UTF-8';
  if (evenNuls >= half * 0.9 && oddNuls === 0) return 'the file is UTF-16 BE text; save it as UTF-8';
  return undefined;
}
