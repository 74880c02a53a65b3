import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { templateVariableRoots } from '../../src/template/references.js';
import {
  checkPromptTemplate,
  checkTemplate,
  hasTemplateSyntax,
  renderAssertionValue,
  renderPrompt,
  renderString,
  TemplateError,
  templateCacheSize,
} from '../../src/template/render.js';
import { judgedByNunjucks } from '../support/nunjucks-judge.js';

describe('renderString', () => {
  it('returns text without template syntax unchanged', () => {
    assert.equal(renderString('plain {text} here', {}), 'plain {text} here');
  });

  it('renders vars without escaping HTML', () => {
    assert.equal(renderString('<b>{{ x }}</b>', { x: '<i>&</i>' }), '<b><i>&</i></b>');
  });

  it('renders an undefined var as empty text (§11 #43)', () => {
    assert.equal(renderString('a{{ missing }}b{{ also.deep }}c', {}), 'abc');
  });

  it('has a load filter that parses JSON', () => {
    assert.equal(renderString('{{ (data | load).a.b }}', { data: '{"a":{"b":42}}' }), '42');
  });

  it('exposes env as a global, from the given env or the process env', () => {
    assert.equal(renderString('{{ env.NAME }}', {}, { NAME: 'given' }), 'given');
    process.env.ASSAY_RENDER_TEST = 'from-process';
    try {
      assert.equal(renderString('{{ env.ASSAY_RENDER_TEST }}', {}), 'from-process');
    } finally {
      delete process.env.ASSAY_RENDER_TEST;
    }
  });

  it('lets a var named env shadow the global', () => {
    assert.equal(renderString('{{ env.A }}', { env: { A: 'var' } }, { A: 'global' }), 'var');
  });

  it('caches compiled templates yet renders each call with its own vars', () => {
    // (A filter: a template of plain references is substituted, not compiled.)
    const template = `cache check {{ who | lower }} ${Math.random()}`;
    const before = templateCacheSize();
    const a = renderString(template, { who: 'alice' });
    const after = templateCacheSize();
    const b = renderString(template, { who: 'bob' });
    assert.match(a, /cache check alice/);
    assert.match(b, /cache check bob/);
    assert.ok(after >= Math.min(before + 1, 2000));
    assert.equal(templateCacheSize(), after, 'the second render reuses the compiled template');
  });

  it('keeps the cache bounded', () => {
    for (let i = 0; i < 2100; i++) renderString(`{{ x | string }} ${i}`, { x: 1 });
    assert.ok(templateCacheSize() <= 2000);
  });

  it('throws a TemplateError for a syntax error', () => {
    assert.throws(() => renderString('{% if %}', {}), TemplateError);
  });

  it('renders built-in filters', () => {
    assert.equal(renderString('{{ items | join(", ") | upper }}', { items: ['a', 'b'] }), 'A, B');
  });
});

describe('renderPrompt', () => {
  it('escapes values inside a JSON chat prompt and pretty-prints it (§11 #40)', () => {
    const raw = '{"role":"user","content":"{{q}}"}';
    const out = renderPrompt(raw, { q: 'say "hi"\nthen \\ leave' });
    assert.deepEqual(JSON.parse(out), { role: 'user', content: 'say "hi"\nthen \\ leave' });
    assert.equal(out, JSON.stringify({ role: 'user', content: 'say "hi"\nthen \\ leave' }, null, 2));
  });

  it('renders only string leaves of a JSON prompt, not keys', () => {
    const raw = '[{"role":"system","{{k}}":"{{v}}","n":1}]';
    const out = JSON.parse(renderPrompt(raw, { k: 'K', v: 'V' }));
    assert.deepEqual(out, [{ role: 'system', '{{k}}': 'V', n: 1 }]);
  });

  it('prepends a prefix that may itself use vars (§11 #41)', () => {
    assert.equal(renderPrompt('Hi {{name}}', { name: 'Ada' }, { prefix: 'P: ' }), 'P: Hi Ada');
    assert.equal(
      renderPrompt('Hi', { who: 'Bo' }, { prefix: '[{{who}}] ', suffix: ' ({{who}})' }),
      '[Bo] Hi (Bo)',
    );
  });

  it('makes a JSON prompt plain text once a prefix is added', () => {
    const out = renderPrompt('{"a":"{{x}}"}', { x: '"' }, { prefix: 'P ' });
    assert.equal(out, 'P {"a":"""}');
  });

  it('resolves a var that refers to another var (§11 #42)', () => {
    assert.equal(renderPrompt('{{x}}', { x: 'hello {{y}}', y: 'world' }), 'hello world');
  });

  it('renders var templates that use filters against the other vars', () => {
    assert.equal(renderPrompt('{{x}}', { x: 'hello {{ y | upper }}', y: 'world' }), 'hello WORLD');
  });

  it('leaves a var template alone when it references an undefined var', () => {
    assert.equal(renderPrompt('{{x}}', { x: 'code: {{ not_a_var }}' }), 'code: {{ not_a_var }}');
  });

  it('strips one trailing newline from string vars', () => {
    assert.equal(renderPrompt('[{{a}}]', { a: 'line\n\n' }), '[line\n]');
    assert.equal(JSON.parse(renderPrompt('{"c":"{{a}}"}', { a: 'x\n' })).c, 'x');
  });

  it('renders an undefined var in a prompt as empty text (§11 #43)', () => {
    assert.equal(renderPrompt('Q: {{question}}.', {}), 'Q: .');
  });

  it('keeps text with a lone {{ verbatim', () => {
    assert.equal(renderPrompt('use {{ like this', { a: 1 }), 'use {{ like this');
  });

  it('does not expand $-patterns of a var value', () => {
    assert.equal(renderPrompt('{{x}}', { x: 'cost {{y}}', y: '$& $1' }), 'cost $& $1');
  });

  it('does not mutate the caller vars', () => {
    const vars = { x: 'a {{y}}\n', y: 'b' };
    renderPrompt('{{x}}', vars);
    assert.deepEqual(vars, { x: 'a {{y}}\n', y: 'b' });
  });
});

describe('renderAssertionValue', () => {
  it('renders strings and the string elements of arrays', () => {
    assert.equal(renderAssertionValue('{{a}}!', { a: 'x' }), 'x!');
    assert.deepEqual(renderAssertionValue(['{{a}}', 3, { b: '{{a}}' }], { a: 'x' }), [
      'x',
      3,
      { b: '{{a}}' },
    ]);
  });

  it('returns objects and numbers untouched', () => {
    const value = { k: '{{a}}' };
    assert.equal(renderAssertionValue(value, { a: 'x' }), value);
    assert.equal(renderAssertionValue(5, { a: 'x' }), 5);
  });
});

describe('checkTemplate / checkPromptTemplate (load-time checks)', () => {
  it('returns undefined for a good template and text without syntax', () => {
    assert.equal(checkTemplate('Hello {{ name | upper }} {% if a is odd %}odd{% endif %}'), undefined);
    assert.equal(checkTemplate('{{ data | load | dump }}'), undefined);
    assert.equal(checkTemplate('no template here {'), undefined);
  });

  it('reports a syntax error on one line, and an unknown filter or test that only rendering would hit', () => {
    assert.equal(
      checkTemplate('{{ a | }}'),
      'template error: [Line 1, Column 8] expected symbol, got variable-end',
    );
    assert.equal(checkTemplate('{{ a | uper }}'), 'template error: unknown filter "uper"');
    assert.equal(checkTemplate('{% set b = a | nope %}{{ b }}'), 'template error: unknown filter "nope"');
    assert.equal(checkTemplate('{% if a is weird %}x{% endif %}'), 'template error: unknown test "weird"');
    // The same text renders with the same error.
    assert.throws(() => renderString('{{ a | uper }}', { a: 'x' }), TemplateError);
  });

  it('shares the render cache: a checked template is not compiled again', () => {
    const text = `{{ unique_${Date.now()} }}`;
    assert.equal(checkTemplate(text), undefined);
    const size = templateCacheSize();
    renderString(text, {});
    assert.equal(templateCacheSize(), size);
  });

  it('checks a prompt as renderPrompt renders it: partial tags literal, JSON chat prompts leaf by leaf', () => {
    // A lone `{{` is rendered verbatim by renderPrompt, so it is no error in a prompt.
    assert.equal(checkPromptTemplate('Use {{ to open a tag'), undefined);
    assert.equal(checkPromptTemplate('Hi {{ q | nope }}'), 'template error: unknown filter "nope"');
    // Each leaf is rendered on its own: escaped quotes that would break the whole text are fine.
    const chat = '[{"role": "user", "content": "{{ \\"a\\" ~ q }}"}]';
    assert.equal(renderPrompt(chat, { q: 'b' }), '[\n  {\n    "role": "user",\n    "content": "ab"\n  }\n]');
    assert.equal(checkPromptTemplate(chat), undefined);
    assert.equal(
      checkPromptTemplate('[{"role": "user", "content": "{{ q | shout }}"}]'),
      'template error: unknown filter "shout"',
    );
  });
});

describe('templateVariableRoots', () => {
  it('names root variables, not attributes, filters, literals or keywords', () => {
    const roots = templateVariableRoots(
      '{{ user.name | upper }} {{ "lit" ~ other }} {% if flag and not done %}{{ items[idx] }}{% endif %} {{ fn(1) }}',
    );
    assert.deepEqual(roots.sort(), ['done', 'flag', 'idx', 'items', 'other', 'user']);
  });
});

// Templates made only of `{{ name }}` references are rendered by substitution instead of by
// Nunjucks (render.ts `substituted`); these hold the two equal, Nunjucks itself being the judge.
describe('renderString: simple references rendered as Nunjucks renders them', () => {
  const vars: Record<string, unknown> = {
    a: 'A<&>"',
    b: '',
    _x: 'u',
    a1: 'one',
    true: 'T',
    none: 'N',
    null: 'NU',
    range: 'R',
    and: 'AND',
    True: 'TT',
    arr: [1, 2],
    obj: { k: 1 },
    n: 42,
    neg: -0,
    big: 1e21,
    nan: Number.NaN,
    bool: true,
    nul: null,
    undef: undefined,
    e: 'x{{a}}y',
    loop: 'L',
    env: 'E',
  };
  const judge = (template: string): void => judgedByNunjucks(template, vars);

  it('agrees on references next to braces, keywords, globals, inherited names and every kind of value', () => {
    for (const t of [
      '{{a}}',
      '{{ a }}',
      'x{{a}}y{{b}}z',
      '{{a}}}',
      '{{{a}}}',
      '{ {{a}} }',
      '}{{a}}{',
      '{{a}}}}',
      '{{{{a}}',
      '{{ true }}',
      '{{ True }}',
      '{{ none }}',
      '{{ null }}',
      '{{ and }}',
      '{{range}}',
      '{{ toString }}',
      '{{constructor}}',
      '{{ env }}',
      '{{ loop }}',
      '{{a}}{{a}}',
      '{{ a1 }}',
      '{{_x}}',
      '{{\na\n}}',
      '{{\ta}}',
      'a}}{{a}}',
      '{{ a|upper }}',
      '{{- a }}',
      '{{a.b}}',
      '{{ a }} {# c #}',
      '{{ nope }}',
      '{{ arr }}',
      '{{ obj }}',
      '{{ n }}',
      '{{ neg }}',
      '{{ big }}',
      '{{ nan }}',
      '{{ bool }}',
      '{{ nul }}',
      '{{ undef }}',
      '{{ e }}',
    ])
      judge(t);
  });

  it('agrees on 3,000 templates built at random from braces, names and text', () => {
    const pieces = [
      '{{',
      '}}',
      '{',
      '}',
      ' ',
      '\n',
      'a',
      'n',
      'x',
      '{{a}}',
      '{{ b }}',
      '{{n}}',
      '{{ arr }}',
      '%',
      '#',
      '-',
      '|',
      '{{ nope }}',
      '{{true}}',
    ];
    let seed = 12345;
    const next = (k: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % k;
    };
    for (let i = 0; i < 3000; i++) {
      let t = '';
      const len = 1 + next(8);
      for (let j = 0; j < len; j++) t += pieces[next(pieces.length)];
      judge(t);
    }
  });
});

describe('hasTemplateSyntax', () => {
  it('is whether the text holds {{, {% or {#, on 5,000 random texts of braces and marks', () => {
    const pieces = ['{', '}', '{{', '%', '#', 'a', ' ', '{%', '{#', '\n', 'é'];
    let seed = 7;
    const next = (k: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % k;
    };
    for (let i = 0; i < 5000; i++) {
      let t = '';
      for (let j = next(6); j >= 0; j--) t += pieces[next(pieces.length)];
      assert.equal(
        hasTemplateSyntax(t),
        t.includes('{{') || t.includes('{%') || t.includes('{#'),
        JSON.stringify(t),
      );
    }
  });
});
