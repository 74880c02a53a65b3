// Python `re` patterns (str patterns, no flags, Python 3.11 syntax) run as JavaScript regexes, for
// formats whose tool builds regexes from user text (ÈwéBench interpolates an answer unescaped).
// The pattern is parsed as Python's sre_parse does, with its errors, and re-emitted for a `u`
// JavaScript regex with Python's meaning: Unicode-aware `\b` and `\w`, `.` stopping only at `\n`,
// `$` also before a final newline, `\s` as str.isspace, possessive quantifiers and atomic groups.
// Flags (re.IGNORECASE, MULTILINE, DOTALL, ASCII, or the same as global inline flags `(?i)` at the
// start) change what `.`, `^`, `$` and the categories emit.
// Verbose mode (re.X, `(?x)`) drops whitespace and `#` comments outside sets before parsing.
// Scoped inline flags (`a(?i:b)`, `(?-i:…)`, `(?s:…)`, `(?m:…)`, `(?a:…)`) change what their body
// emits; where case is ignored in part of the pattern only, literals and sets list their case
// variants (Node 20 has no scoped regex modifiers).
// Not reproduced (PyRegexUnsupported): a scoped verbose flag `(?x:…)`, a backreference or a set
// range of more than 5,000 characters where case is ignored in part of the pattern, conditional
// groups, `\N{name}`, and a backreference to a group that may not take part in the match
// (JavaScript matches the empty string there, Python fails).

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

/** The inline flag letters of sre_parse (`t`, TEMPLATE, is a global flag and refused in a scope). */
const FLAG_LETTERS = 'aiLmsuxt';

/** The largest set range whose case variants are listed one by one (a scoped `i` flag). */
const CASE_RANGE_LIMIT = 5000;

/** Characters whose case class has members that simple upper/lower mapping does not reach. */
const CASE_EXTRAS: Record<number, number[]> = {};
for (const group of [
  'kK\u212a',
  'sS\u017f',
  '\u00e5\u00c5\u212b',
  '\u03c3\u03c2\u03a3',
  '\u03b2\u03d0\u0392',
  '\u03b5\u03f5\u0395',
  '\u03b8\u03d1\u03f4\u0398',
  '\u03b9\u0345\u1fbe\u0399',
  '\u03ba\u03f0\u039a',
  '\u03bc\u00b5\u039c',
  '\u03c0\u03d6\u03a0',
  '\u03c1\u03f1\u03a1',
  '\u03c6\u03d5\u03a6',
  '\u03c9\u2126\u03a9',
  '\u1e61\u1e9b\u1e60',
  '\u00df\u1e9e',
]) {
  const cps = [...group].map((ch) => ch.codePointAt(0)!);
  for (const cp of cps) CASE_EXTRAS[cp] = cps;
}

/**
 * I, i, İ and ı: one case class in Python (sre lowers İ to i and lists ı beside i in `_EXTRA_CASES`),
 * but a `u`+`i` JavaScript regex (simple case folding) keeps İ and ı apart from i and from each other.
 */
const DOTTED_I = [0x49, 0x69, 0x130, 0x131];

const caseCache = new Map<number, number[]>();

/** The code points a `u`+`i` JavaScript regex treats as `cp` (the regex's own test decides). */
function caseVariants(cp: number): number[] {
  if (DOTTED_I.includes(cp)) return DOTTED_I;
  const hit = caseCache.get(cp);
  if (hit) return hit;
  const ch = String.fromCodePoint(cp);
  const candidates = new Set<number>([cp, ...(CASE_EXTRAS[cp] ?? [])]);
  for (const t of [
    ch.toLowerCase(),
    ch.toUpperCase(),
    ch.toUpperCase().toLowerCase(),
    ch.toLowerCase().toUpperCase(),
  ])
    if ([...t].length === 1) candidates.add(t.codePointAt(0)!);
  const same = new RegExp(`^${lit(cp)}$`, 'iu');
  const out = [...candidates].filter((c) => same.test(String.fromCodePoint(c))).sort((a, b) => a - b);
  caseCache.set(cp, out);
  return out;
}

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

  flags: PyRegexFlags;
  /**
   * Case is ignored in only part of the pattern (a scoped `i` flag): JavaScript (Node 20) has no
   * scoped modifiers, so the regex gets no `i` flag and each literal lists its case variants.
   */
  readonly caseByHand: boolean;

  constructor(source: string, flags: PyRegexFlags = {}) {
    this.chars = [...source];
    this.flags = { ...flags };
    this.globalFlags();
    // By hand also where re.A meets re.I: Python then folds ASCII letters only, where a `u`+`i`
    // regex would let the long s and the Kelvin sign match `s` and `k`.
    this.caseByHand =
      /\(\?[aiLmsuxt]*-?[aiLmsuxt]*i[aiLmsuxt]*:|\(\?[aiLmsuxt]*-[aiLmsuxt]*i/.test(source) ||
      (this.flags.ignoreCase === true &&
        (this.flags.ascii === true || /\(\?[aiLmsuxt]*a[aiLmsuxt]*(?:-[aiLmsuxt]*)?:/.test(source)));
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
        return { js: this.literal(ch.codePointAt(0)!), min: 1, max: 1, kind: 'item' };
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
      else if (FLAG_LETTERS.includes(c) || c === '-') return this.scopedFlags(c, start);
      else this.error(`unknown extension ?${c}`, start + 1);
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

  /**
   * `(?aimsux-imsx:…)`, read as sre_parse's _parse_flags reads it (with its errors), the body
   * parsed under the changed flags. Global flags here (`(?i)` after the start) are Python 3.11's
   * error. A scoped verbose flag is not reproduced (verbose mode is applied to the whole text).
   */
  private scopedFlags(first: string, start: number): Node {
    const on = new Set<string>();
    const off = new Set<string>();
    const TYPE = 'aLu';
    let c: string | undefined = first;
    if (c !== '-') {
      for (;;) {
        if (c === 'L') this.error("bad inline flags: cannot use 'L' flag with a str pattern");
        on.add(c);
        if (TYPE.includes(c) && [...on].filter((f) => TYPE.includes(f)).length > 1)
          this.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
        c = this.chars[this.pos++];
        if (c === undefined) {
          this.pos--;
          this.error('missing -, : or )');
        }
        if (')-:'.includes(c)) break;
        if (!FLAG_LETTERS.includes(c))
          this.error(/\p{L}/u.test(c) ? 'unknown flag' : 'missing -, : or )', this.pos - 1);
      }
    }
    if (c === ')') this.error('global flags not at the start of the expression', start);
    if (on.has('t')) this.error('bad inline flags: cannot turn on global flag', this.pos - 1);
    if (c === '-') {
      c = this.chars[this.pos++];
      if (c === undefined) {
        this.pos--;
        this.error('missing flag');
      }
      if (!FLAG_LETTERS.includes(c))
        this.error(/\p{L}/u.test(c) ? 'unknown flag' : 'missing flag', this.pos - 1);
      for (;;) {
        if (TYPE.includes(c)) this.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
        off.add(c);
        c = this.chars[this.pos++];
        if (c === undefined) {
          this.pos--;
          this.error('missing :');
        }
        if (c === ':') break;
        if (!FLAG_LETTERS.includes(c))
          this.error(/\p{L}/u.test(c) ? 'unknown flag' : 'missing :', this.pos - 1);
      }
    }
    if (off.has('t')) this.error('bad inline flags: cannot turn off global flag', this.pos - 1);
    if ([...on].some((f) => off.has(f))) this.error('bad inline flags: flag turned on and off', this.pos - 1);
    if (on.has('x') || off.has('x')) throw new PyRegexUnsupported('a scoped verbose flag (?x:…)');
    const outer = this.flags;
    const scoped: PyRegexFlags = { ...outer };
    const set = (letter: string, key: 'ignoreCase' | 'multiline' | 'dotAll' | 'ascii', value: boolean) => {
      if (on.has(letter) || off.has(letter)) scoped[key] = value && on.has(letter);
    };
    set('i', 'ignoreCase', true);
    set('m', 'multiline', true);
    set('s', 'dotAll', true);
    if (on.has('a')) scoped.ascii = true;
    this.flags = scoped;
    const body = this.alternation();
    this.flags = outer;
    if (this.peek() !== ')') this.error('missing ), unterminated subpattern', start);
    this.pos++;
    return { js: `(?:${body.js})`, min: body.min, max: body.max, kind: 'item' };
  }

  /** The case variants of a code point where case is ignored: ASCII letters only under re.A. */
  private variants(cp: number): number[] {
    if (!this.flags.ascii) return caseVariants(cp);
    const ch = String.fromCodePoint(cp);
    return /^[A-Za-z]$/.test(ch)
      ? [ch.toUpperCase().codePointAt(0)!, ch.toLowerCase().codePointAt(0)!]
      : [cp];
  }

  /**
   * Where the regex has the `i` flag, the Python case variants its folding misses (I, i, İ, ı) for a
   * code point or a range; none elsewhere.
   */
  private foldGap(lo: number, hi = lo): number[] {
    if (this.caseByHand || !this.flags.ignoreCase || this.flags.ascii) return [];
    return DOTTED_I.some((c) => c >= lo && c <= hi) ? DOTTED_I : [];
  }

  /** A literal code point, with its case variants when case is ignored here and the regex has no `i` flag. */
  private literal(cp: number): string {
    if (this.foldGap(cp).length > 0) return `[${DOTTED_I.map(lit).join('')}]`;
    if (!this.caseByHand || !this.flags.ignoreCase) return lit(cp);
    const variants = this.variants(cp);
    return variants.length === 1 ? lit(cp) : `[${variants.map(lit).join('')}]`;
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
    if (this.caseByHand && this.flags.ignoreCase)
      throw new PyRegexUnsupported('a backreference where case is ignored in part of the pattern');
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
    if (common !== undefined) return item(this.literal(common));
    if (c === '0') return item(this.literal(this.octal(c, start)));
    if (DIGITS.includes(c)) {
      const d = this.peek();
      if (d !== undefined && DIGITS.includes(d)) {
        const e = this.chars[this.pos + 1];
        if (OCT.includes(c) && OCT.includes(d) && e !== undefined && OCT.includes(e)) {
          this.pos += 2;
          const cp = Number.parseInt(c + d + e, 8);
          if (cp > 0o377) this.error(`octal escape value \\${c}${d}${e} outside of range 0-0o377`, start);
          return item(this.literal(cp));
        }
        this.pos++;
        return this.groupRef(Number(c + d), start);
      }
      return this.groupRef(Number(c), start);
    }
    if (/^[A-Za-z]$/.test(c)) this.error(`bad escape \\${c}`, start);
    return item(this.literal(c.codePointAt(0)!));
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
        members.push(`${lit(lo)}-${lit(hi)}`, ...this.foldGap(lo, hi).map(lit));
        if (this.caseByHand && this.flags.ignoreCase) {
          if (hi - lo > CASE_RANGE_LIMIT)
            throw new PyRegexUnsupported(
              `a range of more than ${CASE_RANGE_LIMIT} characters where case is ignored in part of the pattern`,
            );
          for (let cp = lo; cp <= hi; cp++)
            for (const v of this.variants(cp)) if (v < lo || v > hi) members.push(lit(v));
        }
        continue;
      }
      if (typeof lo === 'number')
        members.push(
          this.caseByHand && this.flags.ignoreCase
            ? this.variants(lo).map(lit).join('')
            : [lo, ...this.foldGap(lo)].map(lit).join(''),
        );
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
    return new RegExp(js, parser.flags.ignoreCase && !parser.caseByHand ? 'iu' : 'u');
  } catch (err) {
    throw new PyRegexUnsupported(`a pattern assay could not translate (${(err as Error).message})`);
  }
}

/** Python's `re.search(pattern, text) is not None`. */
export function pySearch(pattern: string, text: string): boolean {
  return compilePyRegex(pattern).test(text);
}
