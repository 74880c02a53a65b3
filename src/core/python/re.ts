// Python `re` patterns (str patterns, no flags, Python 3.11 syntax) run as JavaScript regexes, for
// formats whose tool builds regexes from user text (ÈwéBench interpolates an answer unescaped).
// The pattern is parsed as Python's sre_parse does, with its errors, and re-emitted for a `u`
// JavaScript regex with Python's meaning: Unicode-aware `\b` and `\w`, `.` stopping only at `\n`,
// `$` also before a final newline, `\s` as str.isspace, possessive quantifiers and atomic groups.
// Flags (re.IGNORECASE, MULTILINE, DOTALL, ASCII, or the same as global inline flags `(?i)` at the
// start) change what `.`, `^`, `$` and the categories emit.
// Verbose mode (re.X, `(?x)`) drops whitespace and `#` comments outside sets before parsing.
// Not reproduced (PyRegexUnsupported): scoped inline flags `(?i:…)`, conditional groups, `\N{name}`, and a
// backreference to a group that may not take part in the match (JavaScript matches the empty
// string there, Python fails).

import {
  ANCHORS,
  CATEGORIES,
  DIGITS,
  HEX,
  isIdentifier,
  lit,
  MAXREPEAT,
  type Node,
  OCT,
  PyRegexError,
  PyRegexUnsupported,
  SIMPLE_ESCAPES,
} from './re-syntax.js';

export { PyRegexError, PyRegexUnsupported };

/** Python's `re` flags that change a str pattern's meaning (re.I, re.M, re.S, re.A). */
export interface PyRegexFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
  ascii?: boolean;
  /** re.X: whitespace and `#` comments outside character sets are ignored. */
  verbose?: boolean;
}

const VERBOSE_SPACE = '\t\n\v\f\r ';

/**
 * A verbose pattern with its whitespace and `#…` comments removed where sre_parse skips them
 * (outside a character set, not escaped). Python would read a `{m, n}` with spaces as literal
 * text, not a repeat; that case is refused rather than guessed.
 */
function stripVerbose(chars: string[]): string[] {
  const out: string[] = [];
  let inSet = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\\') {
      out.push(c);
      if (i + 1 < chars.length) out.push(chars[++i]);
      continue;
    }
    if (inSet) {
      out.push(c);
      if (c === ']') inSet = false;
      continue;
    }
    if (c === '[') {
      inSet = true;
      out.push(c);
      if (chars[i + 1] === '^') out.push(chars[++i]);
      if (chars[i + 1] === ']') out.push(chars[++i]);
      continue;
    }
    if (VERBOSE_SPACE.includes(c)) continue;
    if (c === '#') {
      while (i + 1 < chars.length && chars[i + 1] !== '\n') i++;
      continue;
    }
    if (c === '{') {
      const m = /^\{[0-9,\t\n\v\f\r ]*\}/.exec(chars.slice(i).join(''));
      if (m && /[\t\n\v\f\r ]/.test(m[0]))
        throw new PyRegexUnsupported('a verbose-mode {m,n} with whitespace inside (Python reads it as text)');
    }
    out.push(c);
  }
  return out;
}

const ASCII_WORD = 'A-Za-z0-9_';
const AW = `[${ASCII_WORD}]`;
const ASCII_CATEGORIES: Record<string, { set: string; negated: boolean }> = {
  d: { set: '0-9', negated: false },
  D: { set: '0-9', negated: true },
  s: { set: '\\t\\n\\v\\f\\r ', negated: false },
  S: { set: '\\t\\n\\v\\f\\r ', negated: true },
  w: { set: ASCII_WORD, negated: false },
  W: { set: ASCII_WORD, negated: true },
};
const ASCII_ANCHORS: Record<string, string> = {
  ...ANCHORS,
  b: `(?:(?<=${AW})(?!${AW})|(?<!${AW})(?=${AW}))`,
  B: `(?:(?<=${AW})(?=${AW})|(?<!${AW})(?!${AW})(?:(?<=[\\s\\S])|(?=[\\s\\S])))`,
};

class Parser {
  private pos = 0;
  private chars: string[];
  /** Widths of the groups opened so far (index = group number − 1); undefined while open. */
  private readonly groups: ({ min: number; max: number } | undefined)[] = [];
  private readonly names = new Map<string, number>();
  private atomics = 0;
  /** Groups that may not take part in a match (optional, in an alternative, in a negative lookaround). */
  private readonly mayNotParticipate = new Set<number>();
  /** Groups numbered from here on were defined inside the lookbehind being parsed. */
  private lookbehindFrom: number | undefined;

  readonly flags: PyRegexFlags;

  constructor(source: string, flags: PyRegexFlags = {}) {
    this.chars = [...source];
    this.flags = { ...flags };
    this.globalFlags();
    if (this.flags.verbose)
      this.chars = [...this.chars.slice(0, this.pos), ...stripVerbose(this.chars.slice(this.pos))];
  }

  /** Global inline flags (`(?im)`), which Python 3.11 accepts only at the start of the pattern. */
  private globalFlags(): void {
    while (this.chars[this.pos] === '(' && this.chars[this.pos + 1] === '?') {
      let j = this.pos + 2;
      const letters: string[] = [];
      while (j < this.chars.length && 'aiLmsux'.includes(this.chars[j])) letters.push(this.chars[j++]);
      if (letters.length === 0 || this.chars[j] !== ')') return;
      for (const l of letters) {
        if (l === 'L') this.error("bad inline flags: cannot use 'L' flag with a str pattern", this.pos + 2);
        if (l === 'x') this.flags.verbose = true;
        else if (l === 'i') this.flags.ignoreCase = true;
        else if (l === 'm') this.flags.multiline = true;
        else if (l === 's') this.flags.dotAll = true;
        else if (l === 'a') this.flags.ascii = true;
      }
      this.pos = j + 1;
    }
  }

  private peek(): string | undefined {
    return this.chars[this.pos];
  }

  /** Whether the next character is one of `set`. */
  private peekIn(set: string): boolean {
    const c = this.chars[this.pos];
    return c !== undefined && set.includes(c);
  }

  private error(message: string, at: number | null = this.pos): never {
    throw new PyRegexError(message, at ?? undefined);
  }

  parse(): string {
    const node = this.alternation();
    if (this.peek() === ')') this.error('unbalanced parenthesis');
    return node.js;
  }

  private alternation(): Node {
    const from = this.groups.length;
    const branches = [this.sequence()];
    while (this.peek() === '|') {
      // Groups of an earlier branch may not take part in a match through a later one.
      this.uncertain(from);
      this.pos++;
      branches.push(this.sequence());
    }
    if (branches.length === 1) return branches[0];
    this.uncertain(from);
    return {
      js: `(?:${branches.map((b) => b.js).join('|')})`,
      min: Math.min(...branches.map((b) => b.min)),
      max: Math.max(...branches.map((b) => b.max)),
      kind: 'item',
    };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.peek() !== undefined && this.peek() !== '|' && this.peek() !== ')') {
      const start = this.pos;
      const ch = this.chars[this.pos++];
      if ('*+?{'.includes(ch)) {
        const repeat = this.repeat(ch, start);
        if (repeat === undefined) {
          items.push({ js: lit(ch.codePointAt(0)!), min: 1, max: 1, kind: 'item' });
          continue;
        }
        const last = items.at(-1);
        if (repeat.min === 0 && last) this.uncertain(last.groupsFrom ?? this.groups.length);
        if (!last || last.kind === 'anchor') this.error('nothing to repeat', start);
        if (last.kind === 'repeat') this.error('multiple repeat', start);
        items[items.length - 1] = this.quantify(last, repeat);
        continue;
      }
      const groupsFrom = this.groups.length;
      const atom = this.atom(ch, start);
      if (atom) items.push({ ...atom, groupsFrom });
    }
    return {
      js: items.map((n) => n.js).join(''),
      min: items.reduce((s, n) => s + n.min, 0),
      max: items.reduce((s, n) => s + n.max, 0),
      kind: 'item',
    };
  }

  /** Parses a quantifier after its first character; undefined when `{` is a literal. */
  private repeat(ch: string, start: number): { min: number; max: number } | undefined {
    if (ch === '*') return { min: 0, max: Infinity };
    if (ch === '+') return { min: 1, max: Infinity };
    if (ch === '?') return { min: 0, max: 1 };
    if (this.peek() === '}') return undefined;
    const here = this.pos;
    let lo = '';
    let hi = '';
    while (this.peekIn(DIGITS)) lo += this.chars[this.pos++];
    if (this.peek() === ',') {
      this.pos++;
      while (this.peekIn(DIGITS)) hi += this.chars[this.pos++];
    } else hi = lo;
    if (this.peek() !== '}') {
      this.pos = here;
      return undefined;
    }
    this.pos++;
    const min = lo ? Number(lo) : 0;
    const max = hi ? Number(hi) : Infinity;
    if (min >= MAXREPEAT || (max !== Infinity && max >= MAXREPEAT))
      throw new PyRegexUnsupported(
        'a repetition count that large (Python: "the repetition number is too large")',
      );
    if (max < min) this.error('min repeat greater than max repeat', start + 1);
    return { min, max };
  }

  private quantify(item: Node, r: { min: number; max: number }): Node {
    let suffix = '';
    if (this.peek() === '?') {
      this.pos++;
      suffix = '?';
    } else if (this.peek() === '+') {
      this.pos++;
      suffix = '+';
    }
    const count = r.min === r.max ? `{${r.min}}` : `{${r.min},${r.max === Infinity ? '' : r.max}}`;
    const body = `(?:${item.js})${count}`;
    const width = {
      min: r.min * item.min,
      max: item.max === 0 ? 0 : r.max * item.max,
    };
    if (suffix === '+') return { js: this.atomic(body), ...width, kind: 'repeat' };
    return { js: `${body}${suffix}`, ...width, kind: 'repeat' };
  }

  /** Marks the groups numbered above `from` as possibly not taking part in a match. */
  private uncertain(from: number): void {
    for (let n = from + 1; n <= this.groups.length; n++) this.mayNotParticipate.add(n);
  }

  /** An atomic group: JavaScript lookaheads never backtrack into, so capture there and consume it. */
  private atomic(js: string): string {
    const name = `a${++this.atomics}`;
    return `(?=(?<${name}>${js}))\\k<${name}>`;
  }

  private atom(ch: string, start: number): Node | undefined {
    switch (ch) {
      case '.':
        return { js: this.flags.dotAll ? '[\\s\\S]' : '[^\\n]', min: 1, max: 1, kind: 'item' };
      case '^':
        return { js: this.flags.multiline ? '(?<![^\\n])' : ANCHORS.A, min: 0, max: 0, kind: 'anchor' };
      case '$':
        return {
          js: this.flags.multiline ? `(?=\\n|${ANCHORS.Z})` : `(?=\\n?${ANCHORS.Z})`,
          min: 0,
          max: 0,
          kind: 'anchor',
        };
      case '[':
        return this.charClass(start);
      case '(':
        return this.group(start);
      case '\\':
        return this.escape(start);
      default:
        return { js: lit(ch.codePointAt(0)!), min: 1, max: 1, kind: 'item' };
    }
  }

  private group(start: number): Node | undefined {
    let capture = true;
    let name: string | undefined;
    let look: '=' | '!' | '<=' | '<!' | undefined;
    let atomic = false;
    if (this.peek() === '?') {
      this.pos++;
      const c = this.chars[this.pos++];
      if (c === undefined) this.error('unexpected end of pattern');
      capture = false;
      if (c === ':') {
      } else if (c === '=' || c === '!') look = c;
      else if (c === '>') atomic = true;
      else if (c === '#') {
        while (this.peek() !== undefined && this.peek() !== ')') this.pos++;
        if (this.peek() === undefined) this.error('missing ), unterminated comment', start);
        this.pos++;
        return undefined;
      } else if (c === '<') {
        const d = this.chars[this.pos++];
        if (d === '=' || d === '!') look = d === '=' ? '<=' : '<!';
        else this.error(`unknown extension ?<${d ?? ''}`, start + 1);
      } else if (c === 'P') {
        const d = this.chars[this.pos++];
        if (d === '<') {
          name = this.groupName('>');
          if (this.names.has(name)) this.error(`redefinition of group name '${name}'`);
          capture = true;
        } else if (d === '=') {
          const ref = this.groupName(')');
          const n = this.names.get(ref);
          if (n === undefined) this.error(`unknown group name '${ref}'`, this.pos - [...ref].length - 1);
          return this.backref(n, this.pos - [...ref].length - 1);
        } else this.error(`unknown extension ?P${d ?? ''}`, start + 1);
      } else if (c === '(') throw new PyRegexUnsupported('conditional groups (?(…)…|…)');
      else if ('aiLmsux-'.includes(c)) {
        // Global flags were taken at the start; here Python 3.11 refuses them, or they are scoped.
        let j = this.pos;
        while (j < this.chars.length && 'aiLmsux'.includes(this.chars[j])) j++;
        if (c !== '-' && this.chars[j] === ')')
          this.error('global flags not at the start of the expression', start);
        throw new PyRegexUnsupported('scoped inline flags (?…:…)');
      } else this.error(`unknown extension ?${c}`, start + 1);
    }
    let index: number | undefined;
    if (capture) {
      this.groups.push(undefined);
      index = this.groups.length;
      if (name !== undefined) this.names.set(name, index);
    }
    const groupsBefore = this.groups.length;
    const outerLookbehind = this.lookbehindFrom;
    if (look === '<=' || look === '<!') this.lookbehindFrom ??= this.groups.length + 1;
    const body = this.alternation();
    this.lookbehindFrom = outerLookbehind;
    if (this.peek() !== ')') this.error('missing ), unterminated subpattern', start);
    this.pos++;
    if (index !== undefined) {
      this.groups[index - 1] = { min: body.min, max: body.max };
      return { js: `(?<p${index}>${body.js})`, min: body.min, max: body.max, kind: 'item' };
    }
    if (look === '!' || look === '<!') this.uncertain(groupsBefore);
    if (look === '<=' || look === '<!') {
      if (body.min !== body.max) this.error('look-behind requires fixed-width pattern', null);
      return { js: `(?${look}${body.js})`, min: 0, max: 0, kind: 'item' };
    }
    if (look) return { js: `(?${look}${body.js})`, min: 0, max: 0, kind: 'item' };
    if (atomic) return { js: this.atomic(body.js), min: body.min, max: body.max, kind: 'item' };
    return { js: `(?:${body.js})`, min: body.min, max: body.max, kind: 'item' };
  }

  private groupName(end: string): string {
    const from = this.pos;
    let name = '';
    while (this.peek() !== undefined && this.peek() !== end) name += this.chars[this.pos++];
    if (this.peek() === undefined) this.error(`missing ${end}, unterminated name`, from);
    this.pos++;
    if (name === '') this.error('missing group name', from);
    if (!isIdentifier(name)) this.error(`bad character in group name '${name}'`, from);
    return name;
  }

  /** A reference to group `n`; `start` positions Python's "open group" error. */
  private backref(n: number, start: number): Node {
    const width = this.groups[n - 1];
    if (width === undefined) this.error('cannot refer to an open group', start);
    if (this.lookbehindFrom !== undefined && n >= this.lookbehindFrom)
      this.error('cannot refer to group defined in the same lookbehind subpattern');
    if (this.mayNotParticipate.has(n))
      throw new PyRegexUnsupported(
        `a reference to group ${n}, which may not take part in the match (Python then fails; JavaScript matches empty)`,
      );
    return { js: `\\k<p${n}>`, min: width.min, max: width.max, kind: 'item' };
  }

  /** Reads exactly `n` hex digits for \x, \u, \U. */
  private hex(n: number, prefix: string, start: number): number {
    const digits = this.chars.slice(this.pos, this.pos + n).join('');
    if (digits.length !== n || !HEX.test(digits))
      this.error(`incomplete escape ${prefix}${digits.match(/^[0-9a-fA-F]*/)?.[0] ?? ''}`, start);
    this.pos += n;
    const cp = Number.parseInt(digits, 16);
    if (cp > 0x10ffff) this.error(`bad escape ${prefix}${digits}`, start);
    return cp;
  }

  /** Escapes common to both contexts: \x \u \U \N and simple escapes; undefined for the rest. */
  private commonEscape(c: string, start: number): number | undefined {
    if (c === 'x') return this.hex(2, '\\x', start);
    if (c === 'u') return this.hex(4, '\\u', start);
    if (c === 'U') return this.hex(8, '\\U', start);
    if (c === 'N') {
      if (this.peek() !== '{') this.error('missing {', this.pos);
      throw new PyRegexUnsupported('named characters \\N{…}');
    }
    return SIMPLE_ESCAPES[c];
  }

  private octal(first: string, start: number): number {
    let digits = first;
    while (digits.length < 3 && this.peekIn(OCT)) digits += this.chars[this.pos++];
    const cp = Number.parseInt(digits, 8);
    if (cp > 0o377) this.error(`octal escape value \\${digits} outside of range 0-0o377`, start);
    return cp;
  }

  private escape(start: number): Node {
    const c = this.chars[this.pos++];
    if (c === undefined) this.error('bad escape (end of pattern)', start);
    const item = (js: string): Node => ({ js, min: 1, max: 1, kind: 'item' });
    if (c in ANCHORS)
      return { js: (this.flags.ascii ? ASCII_ANCHORS : ANCHORS)[c], min: 0, max: 0, kind: 'anchor' };
    const cat = (this.flags.ascii ? ASCII_CATEGORIES : CATEGORIES)[c];
    if (cat) return item(`[${cat.negated ? '^' : ''}${cat.set}]`);
    const common = this.commonEscape(c, start);
    if (common !== undefined) return item(lit(common));
    if (c === '0') return item(lit(this.octal(c, start)));
    if (DIGITS.includes(c)) {
      const d = this.peek();
      if (d !== undefined && DIGITS.includes(d)) {
        const e = this.chars[this.pos + 1];
        if (OCT.includes(c) && OCT.includes(d) && e !== undefined && OCT.includes(e)) {
          this.pos += 2;
          const cp = Number.parseInt(c + d + e, 8);
          if (cp > 0o377) this.error(`octal escape value \\${c}${d}${e} outside of range 0-0o377`, start);
          return item(lit(cp));
        }
        this.pos++;
        return this.groupRef(Number(c + d), start);
      }
      return this.groupRef(Number(c), start);
    }
    if (/^[A-Za-z]$/.test(c)) this.error(`bad escape \\${c}`, start);
    return item(lit(c.codePointAt(0)!));
  }

  private groupRef(n: number, start: number): Node {
    if (n > this.groups.length) this.error(`invalid group reference ${n}`, start + 1);
    return this.backref(n, start);
  }

  /** A set `[...]`: literal code points and ranges, positive categories, negated categories. */
  private charClass(start: number): Node {
    let negated = false;
    if (this.peek() === '^') {
      this.pos++;
      negated = true;
    }
    const members: string[] = [];
    const negatedCats: string[] = [];
    let first = true;
    for (;;) {
      const at = this.pos;
      const ch = this.chars[this.pos++];
      if (ch === undefined) this.error('unterminated character set', start);
      if (ch === ']' && !first) break;
      first = false;
      const lo = this.classItem(ch, at);
      if (this.peek() === '-' && this.chars[this.pos + 1] !== undefined && this.chars[this.pos + 1] !== ']') {
        this.pos++;
        const hiAt = this.pos;
        const hi = this.classItem(this.chars[this.pos++], hiAt);
        const text = this.chars.slice(at, this.pos).join('');
        if (typeof lo !== 'number' || typeof hi !== 'number') this.error(`bad character range ${text}`, at);
        if (hi < lo) this.error(`bad character range ${text}`, at);
        members.push(`${lit(lo)}-${lit(hi)}`);
        continue;
      }
      if (typeof lo === 'number') members.push(lit(lo));
      else if (lo.negated) negatedCats.push(lo.set);
      else members.push(lo.set);
    }
    const alternatives = [
      ...(members.length > 0 ? [`[${members.join('')}]`] : []),
      ...negatedCats.map((set) => `[^${set}]`),
    ];
    const any = alternatives.length === 0 ? '[]' : `(?:${alternatives.join('|')})`;
    const js = negated ? `(?:(?!${any})[\\s\\S])` : any;
    return { js, min: 1, max: 1, kind: 'item' };
  }

  /** One member of a set: a code point or a category. */
  private classItem(ch: string, at: number): number | { set: string; negated: boolean } {
    if (ch !== '\\') return ch.codePointAt(0)!;
    const c = this.chars[this.pos++];
    if (c === undefined) this.error('unterminated character set', at);
    const cats = this.flags.ascii ? ASCII_CATEGORIES : CATEGORIES;
    if (cats[c]) return cats[c];
    if (c === 'b') return 8;
    const common = this.commonEscape(c, at);
    if (common !== undefined) return common;
    if (OCT.includes(c)) return this.octal(c, at);
    if (/^[A-Za-z0-9]$/.test(c)) this.error(`bad escape \\${c}`, at);
    return c.codePointAt(0)!;
  }
}

/**
 * Compiles a Python `re` pattern (str pattern, with `re` flags) to a JavaScript regex with the same
 * meaning for `re.search`. Throws PyRegexError where Python raises re.error, PyRegexUnsupported
 * for constructs assay does not reproduce.
 */
export function compilePyRegex(source: string, flags: PyRegexFlags = {}): RegExp {
  const parser = new Parser(source, flags);
  const js = parser.parse();
  try {
    return new RegExp(js, parser.flags.ignoreCase ? 'iu' : 'u');
  } catch (err) {
    throw new PyRegexUnsupported(`a pattern assay could not translate (${(err as Error).message})`);
  }
}

/** Python's `re.search(pattern, text) is not None`. */
export function pySearch(pattern: string, text: string): boolean {
  return compilePyRegex(pattern).test(text);
}
