import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findPromptfooConfig, looksLikePromptfooConfig } from '../../../src/formats/promptfoo/format.js';
import { fixture } from '../../support/paths.js';
import { writeSuite } from './helpers.js';

describe('finding and recognising promptfoo configs', () => {
  it('finds promptfooconfig.yaml, .yml, .json in that order', () => {
    assert.equal(
      findPromptfooConfig(fixture('promptfoo', 'basic')),
      fixture('promptfoo', 'basic', 'promptfooconfig.yaml'),
    );
    const dir = writeSuite({ 'promptfooconfig.json': '{}', 'promptfooconfig.yml': 'a: 1' }).replace(
      /\/promptfooconfig\.yaml$/,
      '',
    );
    assert.equal(findPromptfooConfig(dir), `${dir}/promptfooconfig.yml`);
    assert.equal(findPromptfooConfig(fixture('promptfoo', 'csv', 'nothing-here')), undefined);
  });

  it('recognises a config by its shape', () => {
    assert.equal(looksLikePromptfooConfig('suite.yaml', 'prompts: [x]\nproviders: [echo]\n'), true);
    assert.equal(looksLikePromptfooConfig('suite.yml', 'providers: [echo]\ntests: file://t.csv\n'), true);
    assert.equal(looksLikePromptfooConfig('suite.json', '{"prompts": ["x"], "tests": []}'), true);
    assert.equal(looksLikePromptfooConfig('promptfooconfig.yaml', 'anything: 1\n'), true);
    assert.equal(looksLikePromptfooConfig('data.yaml', 'name: x\ntests: [1]\n'), false);
    assert.equal(looksLikePromptfooConfig('notes.txt', 'prompts: [x]\nproviders: [echo]\n'), false);
    // Broken JSON naming promptfoo's keys is a config with a syntax error (reported at its line).
    assert.equal(looksLikePromptfooConfig('bad.json', '{"prompts": '), true);
    assert.equal(looksLikePromptfooConfig('bad.json', '{"prompts": ["a"], "providers": ["echo"],}'), true);
    assert.equal(looksLikePromptfooConfig('data.json', '{"rows": [1, 2,]}'), false);
    assert.equal(looksLikePromptfooConfig('list.yaml', '- prompts: [x]\n  providers: [echo]\n'), false);
  });
});
