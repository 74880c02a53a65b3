import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScorerInputError } from '../../../src/scorers/index.js';
import { parseXml } from '../../../src/scorers/structured/xml-parser.js';
import { hasXmlPath } from '../../../src/scorers/structured/xml-paths.js';
import { not, problem, run } from '../text/helpers.js';

function wellFormed(text: string): boolean {
  return parseXml(text, 'document').ok;
}

function failure(text: string): string {
  const parse = parseXml(text, 'document');
  assert.ok(!parse.ok, `${text} should not be well-formed`);
  return parse.reason;
}

describe('XML well-formedness (document)', () => {
  it('accepts elements, attributes, entities, CDATA, comments, PIs, a declaration and a doctype', () => {
    assert.ok(wellFormed('<a/>'));
    assert.ok(
      wellFormed('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<root a="1" b=\'2\'>x</root>\n'),
    );
    assert.ok(wellFormed('<r>Tom &amp; Jerry &lt;3 &#169; &#x1F600; &quot;&apos;&gt;</r>'));
    assert.ok(wellFormed('<r><![CDATA[ 5 < 6 & <b>not a tag</b> ]]></r>'));
    assert.ok(wellFormed('<!-- before --><?pi data?><r><!-- in --><?go now?></r><!-- after -->'));
    assert.ok(wellFormed('<!DOCTYPE note SYSTEM "note.dtd"><note/>'));
    assert.ok(wellFormed('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd"><html/>'));
    assert.ok(wellFormed('\uFEFF<r/>'));
    assert.ok(wellFormed('<ns:r xmlns:ns="urn:x"><ns:c/></ns:r>'));
    assert.ok(wellFormed('<données état="é">ünïcødé 😀</données>'));
    assert.ok(wellFormed('\n  <r>\n  <c/>\n</r>\n\n'));
  });

  it('rejects what a conforming parser rejects, with line:col', () => {
    assert.equal(failure(''), '1:1: document must contain a root element');
    assert.equal(failure('plain text'), '1:1: text data outside of root node');
    assert.equal(failure('<a>'), '1:1: unclosed tag: a');
    assert.equal(failure('<a>\n  <b></a>'), '2:6: unexpected close tag </a>; expected </b>');
    assert.equal(failure('<a/><b/>'), '1:5: document must contain only one root element');
    assert.equal(failure('<a/> trailing'), '1:6: text data outside of root node');
    assert.match(failure('<a>Tom & Jerry</a>'), /1:8: "&" must start an entity/);
    assert.equal(failure('<a>&nbsp;</a>'), '1:4: undefined entity: nbsp');
    assert.equal(failure('<a>&#0;</a>'), '1:4: invalid character reference &#0;');
    assert.match(failure('<a x=1/>'), /unquoted attribute value for x/);
    assert.match(failure('<a x/>'), /attribute x without value/);
    assert.match(failure('<a x="1" x="2"/>'), /duplicate attribute: x/);
    assert.match(failure('<a x="1"y="2"/>'), /no whitespace before attribute y/);
    assert.match(failure('<a x="<"/>'), /disallowed character "<"/);
    assert.match(failure('<a>]]></a>'), /"]]>" is disallowed/);
    assert.match(failure('<a><!-- x -- y --></a>'), /double-hyphen in comment/);
    assert.match(failure(' <?xml version="1.0"?><a/>'), /XML declaration allowed only at the start/);
    assert.match(failure('<?xml encoding="UTF-8"?><a/>'), /malformed XML declaration/);
    assert.match(failure('<a>\u0001</a>'), /1:4: disallowed character U\+0001/);
    assert.match(failure('<1a/>'), /disallowed character in tag name/);
    assert.match(failure('<![CDATA[x]]><a/>'), /CDATA section outside of root node/);
    assert.match(failure('<!DOCTYPE>'), /Malformed DOCTYPE/);
  });

  it('refuses a DTD internal subset (billion laughs) as a policy, not a parse error', () => {
    const parse = parseXml('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', 'document');
    assert.deepEqual(parse, {
      ok: false,
      reason: 'DTD internal subsets are not supported by is-xml validation',
      unsupported: true,
    });
  });

  it('an external DTD may declare entities; standalone="yes" says it does not', () => {
    assert.ok(wellFormed('<!DOCTYPE a SYSTEM "a.dtd"><a>&custom;</a>'));
    assert.ok(
      !wellFormed('<?xml version="1.0" standalone="yes"?><!DOCTYPE a SYSTEM "a.dtd"><a>&custom;</a>'),
    );
  });

  it('nests deeply without recursion', () => {
    const depth = 20000;
    assert.ok(wellFormed(`${'<d>'.repeat(depth)}${'</d>'.repeat(depth)}`));
  });
});

describe('element paths (promptfoo’s parsed-object view)', () => {
  const tree = (text: string) => {
    const parse = parseXml(text, 'document');
    assert.ok(parse.ok);
    return parse.tree;
  };

  it('walks names from the root, lists by index, attributes by @_ and text by #text', () => {
    const t = tree('<root id="7"><item>1</item><item><name>b</name></item><leaf/>text</root>');
    assert.ok(hasXmlPath(t, 'root'));
    assert.ok(hasXmlPath(t, 'root.item'));
    assert.ok(hasXmlPath(t, 'root.leaf'));
    assert.ok(hasXmlPath(t, 'root.item.1.name'));
    assert.ok(hasXmlPath(t, 'root.@_id'));
    assert.ok(hasXmlPath(t, 'root.#text'));
    // A repeated name is a list: only an index enters it.
    assert.ok(!hasXmlPath(t, 'root.item.name'));
    assert.ok(!hasXmlPath(t, 'root.item.2'));
    assert.ok(!hasXmlPath(t, 'root.item.01'));
    // A text-only element is a plain value with nothing inside.
    assert.ok(!hasXmlPath(t, 'root.item.0.name'));
    assert.ok(!hasXmlPath(t, 'item'));
    assert.ok(!hasXmlPath(t, 'root.missing'));
  });
});

describe('is-xml', () => {
  it('passes a well-formed document, with required paths in any of the three forms', async () => {
    const out = '<?xml version="1.0"?>\n<book><title>T</title><author><name>A</name></author></book>';
    assert.deepEqual(await run('is-xml', undefined, out), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    assert.equal((await run('is-xml', 'book.title, book.author.name', out)).pass, true);
    assert.equal((await run('is-xml', ['book.title', 'book.author'], out)).pass, true);
    assert.equal((await run('is-xml', { requiredElements: ['book.author.name'] }, out)).pass, true);
    assert.deepEqual(await run('is-xml', 'book.title, book.isbn, book.year', out), {
      pass: false,
      score: 0,
      reason: 'XML is missing required elements: book.isbn, book.year',
    });
  });

  it('fails malformed output with the parser’s reason', async () => {
    assert.deepEqual(await run('is-xml', undefined, '<a><b></a>'), {
      pass: false,
      score: 0,
      reason: 'XML parsing failed: 1:7: unexpected close tag </a>; expected </b>',
    });
    assert.equal((await run('is-xml', undefined, 'Here is XML: <a/>')).pass, false);
    assert.equal((await run('is-xml', undefined, '')).pass, false);
    assert.equal(
      (await run('is-xml', undefined, '<!DOCTYPE a [<!ENTITY b "c">]><a/>')).reason,
      'DTD internal subsets are not supported by is-xml validation',
    );
  });

  it('not-is-xml', async () => {
    assert.equal((await run('is-xml', undefined, 'not xml', not)).pass, true);
    assert.deepEqual(await run('is-xml', undefined, '<a/>', not), {
      pass: false,
      score: 0,
      reason: 'XML is valid and contains all required elements',
    });
    // Well-formed but missing a path: not-is-xml passes.
    assert.equal((await run('is-xml', 'a.b', '<a/>', not)).pass, true);
  });

  it('bad values', async () => {
    await assert.rejects(run('is-xml', 5, '<a/>'), ScorerInputError);
    await assert.rejects(run('is-xml', { other: ['a'] }, '<a/>'), /\{requiredElements/);
    await assert.rejects(run('is-xml', 'a,,b', '<a/>'), /empty element path/);
    assert.equal((await run('is-xml', {}, '<a/>')).pass, true);
    assert.equal((await run('is-xml', [], '<a/>')).pass, true);
    assert.equal(problem('is-xml', {}), undefined);
    assert.equal(problem('is-xml', { value: 'a.b, c' }), undefined);
    assert.match(problem('is-xml', { value: 'a,' }) ?? '', /empty element path/);
    assert.match(problem('contains-xml', { value: true }) ?? '', /got a boolean/);
  });
});

describe('contains-xml', () => {
  it('finds a well-formed fragment in prose', async () => {
    const out = 'Sure! Here it is:\n```xml\n<user><name>Ann</name><age>5</age></user>\n```\nAnything else?';
    assert.deepEqual(await run('contains-xml', undefined, out), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    assert.equal((await run('contains-xml', 'user.name, user.age', out)).pass, true);
    assert.deepEqual(await run('contains-xml', 'user.email', out), {
      pass: false,
      score: 0,
      reason: 'No valid XML content found matching the requirements',
    });
  });

  it('reads fragments leniently, as promptfoo’s fast-xml-parser does', async () => {
    assert.equal((await run('contains-xml', 'a', 'Text <a>Tom & Jerry &nbsp;</a>')).pass, true);
    assert.equal((await run('contains-xml', 'a.@_checked', 'x <a checked>y</a> z')).pass, true);
    // Sibling fragments are tried together, so both paths can come from one span.
    assert.equal((await run('contains-xml', 'a, b', 'first <a/> then <b>2</b> done')).pass, true);
  });

  it('paths start at the fragment’s top element', async () => {
    const out = 'x <outer><inner><leaf/></inner></outer> y';
    assert.equal((await run('contains-xml', 'outer.inner.leaf', out)).pass, true);
    assert.equal((await run('contains-xml', 'inner.leaf', out)).pass, false);
  });

  it('no XML at all, and a < in prose', async () => {
    assert.deepEqual(await run('contains-xml', undefined, 'if a < b then c > d'), {
      pass: false,
      score: 0,
      reason: 'No XML content found in the output',
    });
    assert.equal((await run('contains-xml', undefined, '')).pass, false);
    assert.equal((await run('contains-xml', undefined, 'broken <a><b></a> mess')).pass, false);
  });

  it('not-contains-xml', async () => {
    assert.equal((await run('contains-xml', undefined, 'no markup', not)).pass, true);
    assert.equal((await run('contains-xml', undefined, 'has <a/>', not)).pass, false);
  });
});
