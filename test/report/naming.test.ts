// A case is named by its description with its vars filled in, else by its most telling vars,
// never by a hash alone; the id stays beside the name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caseName, fullTitle, shortId, tellingVars } from '../../src/report/naming.js';

describe('case names', () => {
  it('renders the description with the case’s vars', () => {
    assert.deepEqual(
      caseName({
        caseId: 'fe0b368bc59d1234abcd',
        description: 'capital of {{country}}',
        vars: { country: 'Peru' },
      }),
      { title: 'capital of Peru', id: 'fe0b368bc59d' },
    );
    // The format's own id is kept as it is.
    assert.equal(caseName({ caseId: 'x', caseRef: 'math-12', description: 'sum' }).id, 'math-12');
  });

  it('keeps a description it cannot render as written, and never reads the environment', () => {
    assert.equal(caseName({ caseId: 'a', description: 'broken {{ x', vars: {} }).title, 'broken {{ x');
    process.env.ASSAY_NAMING_SECRET = 'hunter2';
    try {
      assert.equal(caseName({ caseId: 'a', description: 'key {{ env.ASSAY_NAMING_SECRET }}' }).title, 'key');
    } finally {
      delete process.env.ASSAY_NAMING_SECRET;
    }
  });

  it('keeps the telling vars beside a description that names none of them', () => {
    const name = caseName({ caseId: 'a', description: 'Row #2', vars: { country: 'Japan' } });
    assert.deepEqual(name, { title: 'Row #2', id: 'a', detail: 'country=Japan' });
    assert.equal(fullTitle(name), 'Row #2 · country=Japan');
    assert.equal(caseName({ caseId: 'a', description: 'Row #2' }).detail, undefined);
  });

  it('falls back to the short vars, then to the id', () => {
    const long = 'x'.repeat(500);
    assert.equal(
      tellingVars({ document: long, lang: 'fr', topic: 'tax law', n: 3, extra: 'more' }),
      'lang=fr · topic=tax law · n=3',
    );
    assert.equal(tellingVars({ document: long }), `document=${'x'.repeat(59)}…`);
    assert.equal(tellingVars({ q: 'two\n  lines' }), 'q=two lines');
    assert.equal(caseName({ caseId: 'fe0b368bc59d9999', vars: {} }).title, 'case fe0b368bc59d');
    assert.equal(shortId('h:ba79dbf05987'), 'h:ba79dbf05987');
  });
});
