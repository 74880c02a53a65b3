import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containsHtml, validateHtml } from '../../../src/scorers/structured/html.js';
import { not, run } from '../text/helpers.js';

describe('contains-html (two or more indicators)', () => {
  it('counts indicators as promptfoo does', () => {
    assert.ok(containsHtml('<div>x</div>')); // paired tags (2) + common tag (2)
    assert.ok(containsHtml('Text with a <br> in it')); // opening tag (1) + common tag (2)
    assert.ok(containsHtml('<custom-el attr="1"></custom-el>')); // paired (2) + attribute (1)
    assert.ok(containsHtml('&amp; and <!-- note -->')); // entity (1) + comment (1)
    assert.ok(containsHtml('<!DOCTYPE html>')); // doctype (2)
    assert.ok(!containsHtml('a < b and c > d'));
    assert.ok(!containsHtml('<example>')); // one opening tag only
    assert.ok(!containsHtml('Fish &amp; chips'));
    assert.ok(!containsHtml(''));
  });

  it('scorer and negation', async () => {
    assert.deepEqual(await run('contains-html', undefined, 'Here: <p>hello</p>'), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    assert.deepEqual(await run('contains-html', undefined, 'plain text'), {
      pass: false,
      score: 0,
      reason: 'Expected output to contain HTML content',
    });
    assert.deepEqual(await run('contains-html', undefined, '<b>bold</b>', not), {
      pass: false,
      score: 0,
      reason: 'Expected output to not contain HTML content',
    });
    assert.equal((await run('contains-html', undefined, 'plain text', not)).pass, true);
  });
});

describe('is-html (the whole output is HTML)', () => {
  it('accepts documents and fragments made of elements', () => {
    for (const html of [
      '<p>hello</p>',
      '<!DOCTYPE html><html><head><title>T</title></head><body><p>x</p></body></html>',
      '  <div>\n  <span>a</span>\n</div>\n',
      '<ul><li>one<li>two</ul>',
      '<p>one</p>\n<p>two</p>',
      '<title>Only a title</title>',
      '<br>',
      '<my-widget>custom</my-widget>',
      '<div>unclosed',
      '<table><tr><td>cell</td></tr></table>',
      '<svg><circle r="1"/></svg>',
      '<p>caf&eacute; 😀 ünïcode</p>',
      '<script>if (a < b) { x = "<p>"; }</script>',
      // "İ" lower-cases to two code units: raw-text scanning must not drift.
      '<p>İstanbul</p><SCRIPT>var İİ = "</p> text";</SCRIPT>',
    ]) {
      assert.deepEqual(validateHtml(html), { valid: true, reason: 'Output is valid HTML' }, html);
    }
  });

  it('text left directly in <body> is not HTML', () => {
    for (const text of [
      'hello',
      '<div>a</div> trailing text',
      'Here you go: <p>x</p>',
      '<p>a<div>b</div>c', // <div> closes the <p>; "c" lands in <body>
      '<br>text',
      '<table>stray</table>', // foster-parented out of the table
      '<div/>x</div> y', // self-closing syntax is ignored on HTML elements… then " y" is in body
    ]) {
      assert.deepEqual(
        validateHtml(text),
        { valid: false, reason: 'Output must be wrapped in HTML tags' },
        text,
      );
    }
    // With <body> written, promptfoo skips that check.
    assert.equal(validateHtml('<body>loose text</body>').valid, true);
  });

  it('needs a recognised element', () => {
    assert.deepEqual(validateHtml('<foo>bar</foo>'), {
      valid: false,
      reason: 'Output does not contain recognized HTML elements',
    });
    assert.deepEqual(validateHtml('<!-- only a comment -->'), {
      valid: false,
      reason: 'Output does not contain recognized HTML elements',
    });
  });

  it('empty output and XML are not HTML', () => {
    assert.deepEqual(validateHtml('  \n'), { valid: false, reason: 'Output is empty' });
    assert.deepEqual(validateHtml('<?xml version="1.0"?><note/>'), {
      valid: false,
      reason: 'Output appears to be XML, not HTML',
    });
  });

  it('scorer and negation', async () => {
    assert.deepEqual(await run('is-html', undefined, '<h1>Title</h1>'), {
      pass: true,
      score: 1,
      reason: 'Assertion passed',
    });
    assert.deepEqual(await run('is-html', undefined, 'no'), {
      pass: false,
      score: 0,
      reason: 'Output must be wrapped in HTML tags',
    });
    assert.equal((await run('is-html', undefined, 'no', not)).pass, true);
    assert.deepEqual(await run('is-html', undefined, '<p>x</p>', not), {
      pass: false,
      score: 0,
      reason: 'Output is valid HTML',
    });
  });
});
