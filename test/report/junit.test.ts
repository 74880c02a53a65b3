// JUnit XML read by a real consumer: libxml2's xmllint validates it against a strict JUnit schema
// (test/fixtures/junit/junit.xsd) and counts its elements with XPath. Model output with bytes XML
// forbids and with `]]>` stays valid XML and keeps its readable text.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Scorecard } from '../../src/core/scorecard.js';
import { cdata, xmlAttr, xmlChars } from '../../src/report/junit.js';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { evalSuite } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const XSD = join(repoRoot, 'test', 'fixtures', 'junit', 'junit.xsd');
const xmllint = spawnSync('xmllint', ['--version']).error
  ? 'no xmllint (apt-get install libxml2-utils)'
  : undefined;
if (xmllint) process.stdout.write(`# JUnit schema tests skipped: ${xmllint}\n`);

// Echoed back by the echo provider: control characters XML forbids, a CDATA end, markup.
const HOSTILE_SUITE = `description: Hostile bytes
prompts:
  - 'say {{text}}'
providers:
  - echo
tests:
  - description: bytes {{n}}
    vars: { n: 1, text: "bell\\x07 nul-ish\\x01 back\\x08 ]]> <b>&amp;</b> \\uFFFE end" }
    assert:
      - type: contains
        value: absent
  - description: fine
    vars: { n: 2, text: ok }
    assert:
      - type: contains
        value: ok
  - description: throws
    vars: { n: 3, text: boom }
    options:
      transform: '(() => { throw new Error("transform broke <&> ]]>"); })()'
    assert:
      - type: contains
        value: boom
`;

const tmp = tempDir('assay-junit-');
let xmlFile: string;
let card: Scorecard;

before(async () => {
  const dir = join(tmp.dir, 'hostile');
  mkdirSync(dir);
  const run = await evalSuite(dir, HOSTILE_SUITE, ['--repeat', '2', '-o', 'junit.xml']);
  // Errors past the default budget: exit 3, and the files are still written.
  assert.equal(run.code, 3, run.stderr);
  xmlFile = join(dir, 'junit.xml');
  const r = await runCli(['report', run.runDir, '--json'], { cwd: dir });
  card = JSON.parse(r.stdout) as Scorecard;
});
after(() => tmp.cleanup());

function xpath(expr: string): string {
  // xmllint ends what it prints with a newline of its own.
  return execFileSync('xmllint', ['--xpath', expr, xmlFile], { encoding: 'utf8' }).replace(/\n$/, '');
}

describe('JUnit XML', () => {
  it('escapes attributes, removes forbidden characters and splits CDATA', () => {
    assert.equal(xmlChars('a\u0001b\u0008c\uFFFEd\uD800e\tf\ng'), 'abcde\tf\ng');
    assert.equal(xmlChars('csi\u009b2J del\u007f nbsp\u00a0 é 日本 😀'), 'csi2J del nbsp\u00a0 é 日本 😀');
    assert.equal(xmlAttr('<a href="x">&\n'), '&#60;a href=&#34;x&#34;&#62;&#38;&#10;');
    assert.equal(cdata('x]]>y'), '<![CDATA[x]]]]><![CDATA[>y]]>');
  });

  it('is valid against a strict JUnit schema, whatever the model wrote', { skip: xmllint }, () => {
    const r = spawnSync('xmllint', ['--noout', '--schema', XSD, xmlFile], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /validates/);
  });

  it('has a testsuite per prompt × provider and a testcase per test and trial, counted as the scorecard', {
    skip: xmllint,
  }, () => {
    assert.equal(Number(xpath('count(/testsuites/testsuite)')), card.cells.length);
    assert.equal(Number(xpath('count(//testcase)')), card.counts.total);
    assert.equal(Number(xpath('count(//testcase/failure)')), card.counts.fail);
    assert.equal(Number(xpath('count(//testcase/error)')), card.counts.error);
    assert.equal(Number(xpath('count(//testcase/skipped)')), card.counts.skip);
    assert.equal(xpath('string(/testsuites/@failures)'), String(card.counts.fail));
    assert.equal(Number(xpath('count(//testcase[contains(@name, "trial 2")])')), card.counts.total / 2);
  });

  it('names cases, points at their line, and keeps the readable text of a hostile output', {
    skip: xmllint,
  }, () => {
    const name = xpath('string(//testcase[1]/@name)');
    assert.match(
      name,
      /^bytes 1 · text=bell nul-ish back \]\]> <b>&amp;<\/b> {2}end \(h:[0-9a-f]{12}\) · trial 1$/,
    );
    assert.equal(xpath('string(//testcase[1]/@file)'), 'promptfooconfig.yaml');
    assert.equal(xpath('string(//testcase[1]/@line)'), '7');
    const out = xpath('string(//testcase[1]/system-out)');
    assert.equal(out, 'say bell nul-ish back ]]> <b>&amp;</b>  end');
    assert.match(
      xpath('string(//testcase[1]/failure/@message)'),
      /^contains: Expected output to contain "absent"/,
    );
    assert.match(xpath('string(//testcase/error/@message)'), /transform broke <&> \]\]>/);
    // The raw file has no character XML 1.0 forbids.
    assert.doesNotMatch(
      readFileSync(xmlFile, 'utf8'),
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/,
    );
  });
});
