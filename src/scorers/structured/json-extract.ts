// Finds JSON objects embedded in free text (model prose, ``` fences, several objects in a row).
// Each `{` is tried as the start of an object by a small JSON grammar scanner that stops at the
// first token that cannot continue an object, so prose braces are rejected after a few characters
// and braces inside strings never count. Objects found are returned top-level only, in order.

const TOKEN = /[ \t\r\n]*("|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{}[\],:])/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

type State = 'keyOrEnd' | 'key' | 'colon' | 'value' | 'valueOrEnd' | 'separator';
interface Container {
  start: number;
  close: '}' | ']';
  state: State;
}

/** Index just past the closing quote of the string whose body starts at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return -1;
    if (code === 0x5c) {
      const esc = text[i + 1];
      if (esc === 'u') {
        if (!HEX4.test(text.slice(i + 2, i + 6))) return -1;
        i += 6;
        continue;
      }
      if (esc === undefined || !'"\\/bfnrt'.includes(esc)) return -1;
      i += 2;
      continue;
    }
    i++;
  }
  return -1;
}

/**
 * Index just past the JSON object starting at `start` (a `{`), or -1. `ends` memoises the outcome
 * for every object start seen, so retrying inner braces after an outer failure stays linear.
 */
function objectEnd(text: string, start: number, ends: Map<number, number>): number {
  const known = ends.get(start);
  if (known !== undefined) return known;
  const stack: Container[] = [{ start, close: '}', state: 'keyOrEnd' }];
  let i = start + 1;
  while (stack.length > 0) {
    TOKEN.lastIndex = i;
    const m = TOKEN.exec(text);
    if (!m) break;
    const token = m[1];
    i = TOKEN.lastIndex;
    if (token === '"') {
      i = stringEnd(text, i);
      if (i === -1) break;
    }
    const top = stack[stack.length - 1];
    if (
      token === top.close &&
      (top.state === 'keyOrEnd' || top.state === 'valueOrEnd' || top.state === 'separator')
    ) {
      if (top.close === '}') ends.set(top.start, i);
      stack.pop();
      if (stack.length === 0) return i;
    } else if (top.state === 'keyOrEnd' || top.state === 'key') {
      if (token !== '"') break;
      top.state = 'colon';
    } else if (top.state === 'colon') {
      if (token !== ':') break;
      top.state = 'value';
    } else if (top.state === 'separator') {
      if (token !== ',') break;
      top.state = top.close === '}' ? 'key' : 'value';
    } else {
      // Expecting a value.
      if (token === ':' || token === ',' || token === '}' || token === ']') break;
      top.state = 'separator';
      if (token === '{') {
        const nested = ends.get(i - 1);
        if (nested === -1) break;
        if (nested === undefined) stack.push({ start: i - 1, close: '}', state: 'keyOrEnd' });
        else i = nested;
      } else if (token === '[') {
        stack.push({ start: i - 1, close: ']', state: 'valueOrEnd' });
      }
    }
  }
  // Every object still open contains the bad token, so it fails from its own start too.
  for (const c of stack) if (c.close === '}') ends.set(c.start, -1);
  return -1;
}

/** Every top-level JSON object found in the text, in order (arrays and primitives alone are not objects). */
export function extractJsonObjects(text: string): Record<string, unknown>[] {
  const first = text.indexOf('{');
  if (first === -1) return [];
  const found: Record<string, unknown>[] = [];
  const ends = new Map<number, number>();
  for (let i = first; i !== -1 && i < text.length; i = text.indexOf('{', i)) {
    const end = objectEnd(text, i, ends);
    if (end === -1) {
      i++;
      continue;
    }
    try {
      // The scanner accepts exactly JSON's grammar, so this parse only builds the value.
      found.push(JSON.parse(text.slice(i, end)) as Record<string, unknown>);
    } catch {
      // Only nesting deep enough to exhaust the native parser's stack lands here.
    }
    i = end;
  }
  return found;
}
