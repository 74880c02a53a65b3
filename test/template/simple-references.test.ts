// Templates of `{{ name }}` references are rendered by substitution (render.ts `substituted`) and
// skip Nunjucks at load (checkTemplate). Review of issue 23: texts where Nunjucks answers
// otherwise — a stray `#}` (Nunjucks: "unexpected end of comment"), whitespace Nunjucks does not
// skip inside `{{ }}` (it is part of the name), and an own `__proto__` var (Nunjucks's context copy
// drops it).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkTemplate } from '../../src/template/render.js';
import { runCli } from '../support/cli.js';
import { judgedByNunjucks, nunjucksCompiles } from '../support/nunjucks-judge.js';
import { tempDir } from '../support/tmp.js';

const judge = judgedByNunjucks;

describe('renderString: simple references where Nunjucks answers otherwise', () => {
  it('fails on a stray #} as Nunjucks does, and checkTemplate says so', () => {
    for (const t of ['{{ a }} #}', 'x #} {{a}}', '{{a}}#}', '#}{{a}}{{ a }}']) {
      judge(t, { a: 'A' });
      assert.match(checkTemplate(t) ?? '', /unexpected end of comment/, t);
    }
  });

  it('reads whitespace Nunjucks does not skip as part of the name', () => {
    for (const ws of ['\u000b', '\f', '\u3000', '\ufeff', '\u2028', '\u2003', '\u1680', '\u202f'])
      for (const t of [`{{${ws}a}}`, `{{ a${ws}}}`, `{{ ${ws} a }}`]) judge(t, { a: 'A' });
    // What Nunjucks does skip: space, tab, CR, LF and no-break space.
    judge('{{\u00a0a\t\r\n}}', { a: 'A' });
  });

  it('renders a var named __proto__ as Nunjucks does', () => {
    judge('{{ __proto__ }}', JSON.parse('{"__proto__": "P", "a": "A"}'));
    judge('{{ a }}{{__proto__}}', JSON.parse('{"__proto__": "P", "a": "A"}'));
  });

  it('agrees on 5,000 random templates of references, comment ends and odd whitespace (and checkTemplate with them)', () => {
    const vars = JSON.parse('{"a": "A", "b": "", "n": 7, "__proto__": "P", "env": "E"}') as Record<
      string,
      unknown
    >;
    const pieces = [
      '{{',
      '}}',
      '{',
      '}',
      '#}',
      '%}',
      '#',
      ' ',
      '\n',
      '\u3000',
      '\v',
      '\ufeff',
      '\u00a0',
      'a',
      '-',
    ];
    const refs = ['{{a}}', '{{ b }}', '{{n}}', '{{ __proto__ }}', '{{ env }}', '{{\u3000a}}', '{{ a\f}}'];
    // xorshift32: every bit of the state varies (the low bits of a power-of-two LCG repeat quickly).
    let seed = 2463534242;
    const next = (k: number): number => {
      seed ^= seed << 13;
      seed >>>= 0;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      seed >>>= 0;
      return seed % k;
    };
    for (let i = 0; i < 5000; i++) {
      let t = refs[next(refs.length)];
      for (let j = next(5); j > 0; j--)
        t += next(3) === 0 ? refs[next(refs.length)] : pieces[next(pieces.length)];
      judge(t, vars);
      if (checkTemplate(t) === undefined) assert.ok(nunjucksCompiles(t), `template ${JSON.stringify(t)}`);
    }
  });
});

describe('assay eval: a prompt with a stray #} next to references', () => {
  const tmp = tempDir();
  after(tmp.cleanup);

  it('is refused at load (exit 2, file:line, the Nunjucks error) before any model is called', async () => {
    const suite = join(tmp.dir, 'suite.yaml');
    writeFileSync(
      suite,
      `prompts:
  - 'Say {{ name }} #} now'
providers: [echo]
tests:
  - vars: { name: Bob }
    assert:
      - type: contains
        value: Bob
`,
    );
    const run = await runCli(['eval', '-c', suite, '--no-progress', '--runs-dir', join(tmp.dir, 'runs')]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /suite\.yaml:2:5: prompt "Say \{\{ name \}\} #\} now": template error: unexpected end of comment/,
    );
  });
});
