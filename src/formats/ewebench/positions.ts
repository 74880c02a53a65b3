/**
 * The offset where each element of a top-level JSON array starts, so a diagnostic about test N
 * can name its line. Assumes the text is valid JSON (it is parsed first).
 */
export function arrayElementOffsets(text: string): number[] {
  const offsets: number[] = [];
  let depth = 0;
  let inString = false;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (expectElement && !/\s/.test(ch)) {
      expectElement = false;
      if (ch !== ']') offsets.push(i);
    }
    if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') {
      depth++;
      if (depth === 1 && ch === '[') expectElement = true;
    } else if (ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 1) expectElement = true;
  }
  return offsets;
}

/** 1-based line and column of an offset. */
export function lineColAt(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}
