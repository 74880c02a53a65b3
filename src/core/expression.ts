// A small arithmetic expression language, the subset of mathjs that promptfoo's `derivedMetrics`
// use: numbers, identifiers, + - * / % ^ (and `mod`), unary minus and plus, parentheses, function
// calls, comparisons, `and` / `or` / `not` and the ternary `c ? a : b`. Written by hand so that no
// user text ever reaches `eval`, and so the (large) mathjs is not needed. Pure; no I/O.

/** A syntax error in an expression, at a zero-based character index. */
export class ExpressionSyntaxError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
    this.name = 'ExpressionSyntaxError';
  }
}

/** An expression that parsed but cannot be evaluated with the given names (e.g. an unknown one). */
export class ExpressionEvalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionEvalError';
  }
}

/** A parsed expression. */
export type Expr =
  | { kind: 'num'; value: number }
  | { kind: 'name'; name: string }
  | { kind: 'unary'; op: '-' | '+' | 'not'; arg: Expr }
  | { kind: 'binary'; op: string; left: Expr; right: Expr }
  | { kind: 'cond'; test: Expr; then: Expr; else: Expr }
  | { kind: 'call'; fn: string; args: Expr[] };

interface Token {
  kind: 'num' | 'name' | 'op' | 'end';
  text: string;
  index: number;
}

const OPERATORS = ['==', '!=', '<=', '>=', '+', '-', '*', '/', '%', '^', '(', ')', ',', '<', '>', '?', ':'];
const WORD_OPERATORS = new Set(['and', 'or', 'not', 'xor', 'mod']);
const MAX_DEPTH = 100;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const num = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (num) {
      tokens.push({ kind: 'num', text: num[0], index: i });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i));
    if (name) {
      // `mod(7, 3)` is mathjs's function; `7 mod 3` its operator.
      const call = /^\s*\(/.test(text.slice(i + name[0].length)) && Object.hasOwn(FUNCTIONS, name[0]);
      tokens.push({ kind: WORD_OPERATORS.has(name[0]) && !call ? 'op' : 'name', text: name[0], index: i });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) throw new ExpressionSyntaxError(`unexpected character "${ch}"`, i);
    tokens.push({ kind: 'op', text: op, index: i });
    i += op.length;
  }
  tokens.push({ kind: 'end', text: '', index: text.length });
  return tokens;
}

/** Binary operators by precedence level, lowest first (mathjs's order). */
const LEVELS: string[][] = [
  ['or'],
  ['xor'],
  ['and'],
  ['==', '!=', '<', '>', '<=', '>='],
  ['+', '-'],
  ['*', '/', '%', 'mod'],
];

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos];
  }

  private isOp(text: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.text === text;
  }

  private expect(text: string): void {
    if (!this.isOp(text)) throw this.unexpected(`"${text}"`);
    this.pos++;
  }

  private unexpected(wanted: string): ExpressionSyntaxError {
    const t = this.peek();
    const got = t.kind === 'end' ? 'the end of the expression' : `"${t.text}"`;
    return new ExpressionSyntaxError(`expected ${wanted} but found ${got}`, t.index);
  }

  parseAll(): Expr {
    if (this.peek().kind === 'end') throw new ExpressionSyntaxError('the expression is empty', 0);
    const e = this.conditional();
    if (this.peek().kind !== 'end') throw this.unexpected('an operator');
    return e;
  }

  private nested<T>(index: number, f: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new ExpressionSyntaxError('the expression nests too deeply', index);
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  private conditional(): Expr {
    return this.nested(this.peek().index, () => {
      const test = this.binary(0);
      if (!this.isOp('?')) return test;
      this.pos++;
      const then = this.conditional();
      this.expect(':');
      return { kind: 'cond', test, then, else: this.conditional() };
    });
  }

  private binary(level: number): Expr {
    if (level >= LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || !LEVELS[level].includes(t.text)) return left;
      this.pos++;
      const op = t.text === 'mod' ? '%' : t.text;
      left = { kind: 'binary', op, left, right: this.binary(level + 1) };
    }
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === 'op' && (t.text === '-' || t.text === '+' || t.text === 'not')) {
      this.pos++;
      return this.nested(t.index, () => ({
        kind: 'unary',
        op: t.text as '-' | '+' | 'not',
        arg: this.unary(),
      }));
    }
    return this.power();
  }

  /** `^` binds tighter than unary minus on its left (-2^2 = -4) and is right-associative. */
  private power(): Expr {
    const base = this.primary();
    if (!this.isOp('^')) return base;
    this.pos++;
    return { kind: 'binary', op: '^', left: base, right: this.unary() };
  }

  private primary(): Expr {
    const t = this.peek();
    if (t.kind === 'num') {
      this.pos++;
      return { kind: 'num', value: Number(t.text) };
    }
    if (t.kind === 'name') {
      this.pos++;
      if (!this.isOp('(')) return { kind: 'name', name: t.text };
      this.pos++;
      const args: Expr[] = [];
      if (!this.isOp(')')) {
        for (;;) {
          args.push(this.conditional());
          if (!this.isOp(',')) break;
          this.pos++;
        }
      }
      this.expect(')');
      if (!Object.hasOwn(FUNCTIONS, t.text))
        throw new ExpressionSyntaxError(`unknown function "${t.text}"`, t.index);
      return { kind: 'call', fn: t.text, args };
    }
    if (this.isOp('(')) {
      this.pos++;
      const inner = this.conditional();
      this.expect(')');
      return inner;
    }
    throw this.unexpected('a number, a name or "("');
  }
}

/** Parses an expression; throws ExpressionSyntaxError with the position of the problem. */
export function parseExpression(text: string): Expr {
  return new Parser(tokenize(text)).parseAll();
}

/**
 * mathjs's `round`: half away from zero, on the decimal value a person reads (1.005 → 1.01 at two
 * digits, although the double is slightly below 1.005), so the product is first cut to 15
 * significant digits.
 */
function roundTo(x: number, digits = 0): number {
  const f = 10 ** digits;
  const scaled = Number((Math.abs(x) * f).toPrecision(15));
  return (Math.sign(x) * Math.round(scaled)) / f;
}

/** mathjs's `mod`: the floored remainder, and x itself for a zero divisor. */
function mod(x: number, y: number): number {
  return y === 0 ? x : x - y * Math.floor(x / y);
}

interface Fn {
  /** Argument count: exactly `min`, or `min` to `max`; variadic ones need at least `min`. */
  min: number;
  max: number;
  f: (args: number[]) => number;
}

const unary = (f: (x: number) => number): Fn => ({ min: 1, max: 1, f: (a) => f(a[0]) });
const variadic = (f: (a: number[]) => number): Fn => ({ min: 1, max: Number.POSITIVE_INFINITY, f });

const FUNCTIONS: Record<string, Fn> = {
  abs: unary(Math.abs),
  sqrt: unary(Math.sqrt),
  cbrt: unary(Math.cbrt),
  exp: unary(Math.exp),
  log: { min: 1, max: 2, f: (a) => (a.length === 2 ? Math.log(a[0]) / Math.log(a[1]) : Math.log(a[0])) },
  log10: unary(Math.log10),
  log2: unary(Math.log2),
  pow: { min: 2, max: 2, f: (a) => a[0] ** a[1] },
  mod: { min: 2, max: 2, f: (a) => mod(a[0], a[1]) },
  round: { min: 1, max: 2, f: (a) => roundTo(a[0], a[1]) },
  floor: unary(Math.floor),
  ceil: unary(Math.ceil),
  fix: unary(Math.trunc),
  sign: unary(Math.sign),
  min: variadic((a) => Math.min(...a)),
  max: variadic((a) => Math.max(...a)),
  sum: { min: 0, max: Number.POSITIVE_INFINITY, f: (a) => a.reduce((s, x) => s + x, 0) },
  mean: variadic((a) => a.reduce((s, x) => s + x, 0) / a.length),
  median: variadic((a) => {
    const sorted = [...a].sort((x, y) => x - y);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }),
};

function call(name: string, args: number[]): number {
  const fn = FUNCTIONS[name];
  if (args.length < fn.min || args.length > fn.max) {
    const want =
      fn.max === Number.POSITIVE_INFINITY
        ? `at least ${fn.min}`
        : fn.min === fn.max
          ? `${fn.min}`
          : `${fn.min} to ${fn.max}`;
    throw new ExpressionEvalError(`${name}() takes ${want} argument(s), got ${args.length}`);
  }
  return fn.f(args);
}

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, Infinity, NaN, true: 1, false: 0 };

function binary(op: string, x: number, y: number): number {
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '%':
      return mod(x, y);
    case '^':
      return x ** y;
    case '==':
      return Number(x === y);
    case '!=':
      return Number(x !== y);
    case '<':
      return Number(x < y);
    case '>':
      return Number(x > y);
    case '<=':
      return Number(x <= y);
    case '>=':
      return Number(x >= y);
    case 'and':
      return Number(Boolean(x) && Boolean(y));
    case 'or':
      return Number(Boolean(x) || Boolean(y));
    case 'xor':
      return Number(Boolean(x) !== Boolean(y));
    default:
      throw new ExpressionEvalError(`unknown operator "${op}"`);
  }
}

/**
 * Evaluates a parsed expression with `scope` giving the value of each name (before the constants
 * `pi`, `e`, …, as mathjs looks them up). Booleans are 1 and 0. Throws ExpressionEvalError for a
 * name that is not in scope.
 */
export function evaluateExpression(expr: Expr, scope: Readonly<Record<string, number>>): number {
  switch (expr.kind) {
    case 'num':
      return expr.value;
    case 'name': {
      if (Object.hasOwn(scope, expr.name)) return scope[expr.name];
      if (Object.hasOwn(CONSTANTS, expr.name)) return CONSTANTS[expr.name];
      throw new ExpressionEvalError(`undefined symbol "${expr.name}"`);
    }
    case 'unary': {
      const v = evaluateExpression(expr.arg, scope);
      return expr.op === '-' ? -v : expr.op === '+' ? v : Number(!v);
    }
    case 'binary':
      return binary(expr.op, evaluateExpression(expr.left, scope), evaluateExpression(expr.right, scope));
    case 'cond':
      return evaluateExpression(expr.test, scope)
        ? evaluateExpression(expr.then, scope)
        : evaluateExpression(expr.else, scope);
    case 'call':
      return call(
        expr.fn,
        expr.args.map((a) => evaluateExpression(a, scope)),
      );
  }
}
