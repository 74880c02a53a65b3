// A suite file saved as UTF-16 is named as such, with what to do, wherever it is read.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { utf16Problem } from '../../src/core/encoding.js';
import { InputError } from '../../src/core/errors.js';
import { loadSuite } from '../../src/formats/detect.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-encoding-');
after(() => tmp.cleanup());

const utf16le = (text: string, bom = true): Buffer =>
  Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);

async function loadError(path: string): Promise<string> {
  try {
    await loadSuite(path);
  } catch (err) {
    assert.ok(err instanceof InputError, String(err));
    return err.message;
  }
  assert.fail('expected the suite to be refused');
}

describe('UTF-16 files', () => {
  it('are recognised with or without a byte-order mark, and UTF-8 text is not', () => {
    assert.match(utf16Problem(utf16le('prompts: [hi]')) ?? '', /UTF-16 LE.*save it as UTF-8/);
    assert.match(utf16Problem(utf16le('prompts: [hi]', false)) ?? '', /UTF-16 LE/);
    assert.match(utf16Problem(Buffer.from([0xfe, 0xff, 0, 0x70])) ?? '', /UTF-16 BE/);
    assert.equal(utf16Problem(Buffer.from('prompts: [hi]\nprovider: [echo]\n')), undefined);
    assert.equal(utf16Problem(Buffer.from('日本語のテキストです。')), undefined);
    assert.equal(utf16Problem(Buffer.alloc(0)), undefined);
  });

  it('a UTF-16 config, or a UTF-16 file it references, is refused with what to do', async () => {
    const dir = join(tmp.dir, 'suite');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.yaml'), utf16le("prompts: ['{{q}}']\nproviders: [echo]\ntests: []\n"));
    assert.match(
      await loadError(join(dir, 'config.yaml')),
      /config\.yaml: the file is UTF-16 LE text; save it as UTF-8/,
    );
    writeFileSync(
      join(dir, 'promptfooconfig.yaml'),
      "prompts: ['{{q}}']\nproviders: [echo]\ntests: file://t.yaml\n",
    );
    writeFileSync(join(dir, 't.yaml'), utf16le('- vars: {q: a}\n', false));
    assert.match(
      await loadError(join(dir, 'promptfooconfig.yaml')),
      /t\.yaml: the file is UTF-16 LE text; save it as UTF-8/,
    );
  });
});
