// Test sources promptfoo fetches over the network (§1.4) are refused with what to do instead.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorsOf } from './helpers.js';

const HEAD = 'prompts: ["{{q}}"]\nproviders: [echo]\n';

describe('remote test sources (§1.4)', () => {
  const cases: [string, RegExp][] = [
    [
      'huggingface://datasets/org/name?split=test',
      /^tests from the Hugging Face dataset huggingface:\/\/datasets\/org\/name\?split=test need network access .*Export the split to CSV/,
    ],
    [
      'https://docs.google.com/spreadsheets/d/abc/edit',
      /^tests from the Google Sheet .* need network access \(and Google credentials for a private sheet\).*Download it with File → Download → Comma-separated values/,
    ],
    [
      'https://contoso.sharepoint.com/sites/x/tests.csv',
      /^tests from the SharePoint file .* need network access and Microsoft credentials.*Download the sheet as CSV/,
    ],
    [
      'az://account/container/tests.jsonl',
      /^tests from the Azure blob .* need network access and Azure credentials/,
    ],
    ['langfuse://traces?limit=10', /^tests from Langfuse .* need network access and Langfuse credentials/],
    [
      'https://example.com/tests.yaml',
      /^tests from https:\/\/example\.com\/tests\.yaml would have to be fetched/,
    ],
  ];

  for (const [ref, message] of cases) {
    it(`refuses ${ref.split(':')[0]}${ref.includes('sharepoint') ? ' (SharePoint)' : ref.includes('google') ? ' (Google Sheets)' : ''} as a string, a list entry and {path}`, async () => {
      for (const tests of [`tests: '${ref}'`, `tests:\n  - '${ref}'`, `tests:\n  - path: '${ref}'`]) {
        const diags = await errorsOf(`${HEAD}${tests}\n`);
        assert.equal(diags.length, 1, tests);
        assert.match(diags[0].message, message, tests);
        assert.match(diags[0].message, /assay reads suites offline and fetches nothing while loading one/);
        assert.equal(diags[0].line, tests.includes('\n') ? 4 : 3);
      }
    });
  }
});
