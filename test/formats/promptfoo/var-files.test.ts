import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { loadPromptfooSuite } from '../../../src/formats/promptfoo/load.js';
import { renderPrompt } from '../../../src/template/render.js';
import { varFileValue } from '../../../src/template/var-files.js';
import { ENV, errorsOf, loadText, varsOf, writeSuite } from './helpers.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46]);

describe('file:// var values (§2.3, §11 #14)', () => {
  it('reach the prompt as the file text, trimmed, for a plain path and for each glob match', async () => {
    const suite = await loadText(
      `
prompts: ["Doc: {{v}} / {{w}}"]
providers: [echo]
tests:
  - vars: {v: file://vf/a.txt, w: "file://vf/*.txt"}
`,
      { 'vf/a.txt': '\n  alpha text \n\n', 'vf/b.txt': 'beta\n' },
    );
    assert.deepEqual(varsOf(suite.cases), [
      { v: 'alpha text', w: 'alpha text' },
      { v: 'alpha text', w: 'beta' },
    ]);
    const [prompt] = suite.prompts;
    assert.equal(renderPrompt(prompt.raw ?? '', suite.cases[1].vars), 'Doc: alpha text / beta');
  });

  it('reads .json as text, .yaml as a JSON string (merge keys included), other text files trimmed', async () => {
    const suite = await loadText(
      `
prompts: ["{{j}} {{y}} {{m}}"]
providers: [echo]
tests:
  - vars: {j: file://d.json, y: file://d.yaml, m: file://notes.md}
`,
      {
        'd.json': ' {"a": 1}\n',
        'd.yaml': 'base: &b {x: 1}\nitem:\n  <<: *b\n  y: 2\n',
        'notes.md': '# Notes\n',
      },
    );
    assert.deepEqual(suite.cases[0].vars, {
      j: '{"a": 1}',
      y: '{"base":{"x":1},"item":{"x":1,"y":2}}',
      m: '# Notes',
    });
  });

  it('turns an image into a data URL, its type taken from the bytes when they say otherwise', async () => {
    // writeSuite takes text, so the binary images are written over placeholders.
    const path = writeSuite({
      'promptfooconfig.yaml':
        'prompts: ["{{a}}"]\nproviders: [echo]\ntests:\n  - vars: {a: file://img/real.png, b: file://img/fake.png, c: file://img/logo.svg}\n',
      'img/logo.svg': '<svg/>',
      'img/real.png': '',
      'img/fake.png': '',
    });
    writeFileSync(join(dirname(path), 'img/real.png'), PNG);
    writeFileSync(join(dirname(path), 'img/fake.png'), JPEG);
    const loaded = await loadPromptfooSuite(path, { env: ENV });
    assert.deepEqual(loaded.cases[0].vars, {
      a: `data:image/png;base64,${PNG.toString('base64')}`,
      b: `data:image/jpeg;base64,${JPEG.toString('base64')}`,
      c: `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}`,
    });
  });

  it('resolves file:// references nested in objects and arrays (newer promptfoo)', async () => {
    const suite = await loadText(
      `
prompts: ["{{ doc.body }}"]
providers: [echo]
tests:
  - vars:
      doc: {body: file://a.txt, parts: [1, file://b.txt, {deep: file://a.txt}]}
`,
      { 'a.txt': 'A\n', 'b.txt': 'B' },
    );
    assert.deepEqual(suite.cases[0].vars, { doc: { body: 'A', parts: [1, 'B', { deep: 'A' }] } });
  });

  it('loads defaultTest and CSV vars too', async () => {
    const suite = await loadText(
      `
prompts: ["{{ctx}} {{q}}"]
providers: [echo]
defaultTest:
  vars: {ctx: file://ctx.txt}
tests: file://rows.csv
`,
      { 'ctx.txt': 'context', 'q.txt': 'question', 'rows.csv': 'q\nfile://q.txt\n' },
    );
    assert.deepEqual(suite.cases[0].vars, { ctx: 'context', q: 'question' });
  });

  it('counts each file in the content hash, keeping case ids (the reference is the identity)', async () => {
    const config = 'prompts: ["{{v}}"]\nproviders: [echo]\ntests:\n  - vars: {v: file://v.txt}\n';
    const path = writeSuite({ 'promptfooconfig.yaml': config, 'v.txt': 'one' });
    const first = await loadPromptfooSuite(path, { env: ENV });
    assert.deepEqual(first.source.files, ['promptfooconfig.yaml', 'v.txt']);
    writeFileSync(join(dirname(path), 'v.txt'), 'two');
    const second = await loadPromptfooSuite(path, { env: ENV });
    assert.equal(second.cases[0].vars.v, 'two');
    assert.notEqual(second.source.contentHash, first.source.contentHash);
    assert.equal(second.cases[0].id, first.cases[0].id);
  });

  it('refuses media, a missing var script and a script nested in a var, and reports a broken PDF', async () => {
    const diags = await errorsOf(
      `
prompts: ["{{a}}"]
providers: [echo]
tests:
  - vars: {a: file://gone.py, b: file://doc.pdf, c: file://clip.mp3, d: {x: file://gen.js}}
`,
      { 'doc.pdf': '%PDF', 'clip.mp3': '', 'gen.js': '' },
    );
    assert.deepEqual(
      diags.map((d) => `${d.line}:${d.col} ${d.message}`),
      [
        '5:15 var "a": file gone.py: file not found',
        '5:34 var "b": file doc.pdf: not a readable PDF: Invalid PDF structure.',
        '5:53 var "c": a video or audio var (file://clip.mp3) is not supported by assay yet (it comes in a later version)',
        '5:77 var "d" (at x): a var computed by a script (file://gen.js) is not supported by assay yet (it comes in a later version)',
      ],
    );
  });

  it('keeps a whole var naming a script as its reference, computed for each job (Case.varScripts)', async () => {
    const suite = await loadText(
      `prompts: ["{{a}}"]\nproviders: [echo]\ntests:\n  - vars: {a: file://gen.py, b: file://gen.js, c: plain}\n`,
      {
        'gen.py': 'def get_var(n, p, v):\n    return {"output": n}\n',
        'gen.js': 'module.exports = () => ({output: "x"});\n',
      },
    );
    assert.deepEqual(suite.cases[0].preparation?.varScripts, { a: 'file://gen.py', b: 'file://gen.js' });
    assert.equal(suite.cases[0].vars.a, 'file://gen.py');
  });

  it('reports a missing file at the var, nested or not, once however many cases share it', async () => {
    const diags = await errorsOf(`
prompts: ["{{a}}"]
providers: [echo]
tests:
  - vars:
      a: file://missing.txt
      n: [x, y]
      o: {list: [1, file://gone.txt]}
`);
    assert.deepEqual(
      diags.map((d) => `${d.line}:${d.col} ${d.message}`),
      [
        '6:10 var "a": file missing.txt: file not found',
        '8:21 var "o" (at list[1]): file gone.txt: file not found',
      ],
    );
  });

  it('explains a glob that is not expanded (nested, or with disableVarExpansion)', async () => {
    const diags = await errorsOf(
      `
prompts: ["{{a}}"]
providers: [echo]
tests:
  - vars: {a: {docs: "file://d/*.txt"}}
  - vars: {b: "file://d/*.txt"}
    options: {disableVarExpansion: true}
`,
      { 'd/x.txt': 'x' },
    );
    assert.deepEqual(
      diags.map((d) => d.message),
      [
        'var "a" (at docs): file://d/*.txt is a glob, and a glob is expanded only as a var\'s whole value (and not with `disableVarExpansion`)',
        'var "b": file://d/*.txt is a glob, and a glob is expanded only as a var\'s whole value (and not with `disableVarExpansion`)',
      ],
    );
  });

  it('reports an invalid YAML var file', async () => {
    const diags = await errorsOf(
      'prompts: ["{{a}}"]\nproviders: [echo]\ntests:\n  - vars: {a: file://bad.yaml}\n',
      {
        'bad.yaml': 'a: [unclosed\n',
      },
    );
    assert.equal(diags.length, 1);
    assert.match(diags[0].message, /^var "a": file bad\.yaml: invalid YAML: /);
  });
});

describe('varFileValue', () => {
  it('maps extensions to values and refusals', async () => {
    assert.deepEqual(await varFileValue('/x/a.TXT', Buffer.from(' hi \n')), { value: 'hi' });
    assert.deepEqual(await varFileValue('/x/a.yml', Buffer.from('- 1\n- two\n')), { value: '[1,"two"]' });
    assert.deepEqual(await varFileValue('/x/a.webp', Buffer.from('RIFF\0\0\0\0WEBPVP8 ')), {
      value: `data:image/webp;base64,${Buffer.from('RIFF\0\0\0\0WEBPVP8 ').toString('base64')}`,
    });
    assert.deepEqual(await varFileValue('/x/a.gif', Buffer.from('GIF89a..')), {
      value: `data:image/gif;base64,${Buffer.from('GIF89a..').toString('base64')}`,
    });
    assert.deepEqual(await varFileValue('/x/a.mjs', Buffer.from('')), {
      unsupported: 'a var computed by a script',
    });
    assert.deepEqual(await varFileValue('/x/a.mp4', Buffer.from('')), {
      unsupported: 'a video or audio var',
    });
  });
});
