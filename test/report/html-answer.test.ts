// The HTML report's case view shows a structured answer as it came — each tool call's name and
// arguments, the model's reasoning, the finish reason and the wire's own word for it — in a real
// browser (Debian's Chromium), and a model's hostile text in any block stays text.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserMissing, launchBrowser } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { type MockProviders, startMockProviders } from '../support/mock-providers.js';
import { repoRoot } from '../support/paths.js';
import { XSS_IMG, XSS_SCRIPT } from '../support/report-runs.js';
import { tempDir } from '../support/tmp.js';

const missing = browserMissing();
if (missing) process.stdout.write(`# HTML report browser tests skipped: ${missing}\n`);

const ARTIFACTS = join(repoRoot, 'test-artifacts');
const tmp = tempDir('assay-html-answer-');
const HOSTILE_ARGS = JSON.stringify({ city: `Paris${XSS_SCRIPT}`, note: XSS_IMG });
const HOSTILE_THOUGHT = `Think first. ${XSS_IMG}`;
let server: MockProviders;
let html = '';
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
const pageErrors: string[] = [];

before(async () => {
  // Every answer: reasoning, a line of text, and a tool call whose arguments carry markup.
  server = await startMockProviders({
    script: () => ({
      reasoning: HOSTILE_THOUGHT,
      text: 'Let me look that up.',
      toolCall: { id: 'call_hostile', name: 'get_weather', arguments: HOSTILE_ARGS },
      promptTokens: 5,
      completionTokens: 9,
    }),
  });
  const dir = join(tmp.dir, 'suite');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'promptfooconfig.yaml'),
    `prompts: ['Weather in {{city}}?']
providers:
  - id: openai:chat:mock-chat
    config: { apiBaseUrl: ${server.url}/v1, apiKey: sk-mock-openai-key }
tests:
  - description: weather with a tool
    vars: { city: Paris }
    assert:
      - type: contains
        value: get_weather
`,
  );
  const r = await runCli(
    ['eval', 'promptfooconfig.yaml', '--no-progress', '--no-cache', '-o', 'report.html'],
    {
      cwd: dir,
    },
  );
  assert.equal(r.code, 0, r.stderr);
  html = join(dir, 'report.html');
  mkdirSync(ARTIFACTS, { recursive: true });
  if (!missing) browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server.close();
  tmp.cleanup();
});

async function open(file: string): Promise<Page> {
  assert.ok(browser);
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith('file://')) return route.continue();
    pageErrors.push(`network request: ${route.request().url()}`);
    return route.abort();
  });
  await page.goto(`file://${file}#status=all`);
  await page.waitForSelector('html[data-ready="true"]');
  return page;
}

describe('the HTML report’s case view of a structured answer', { skip: missing }, () => {
  it('shows the tool call by name with its arguments, the reasoning and the finish reason, all as text', async () => {
    const page = await open(html);
    await page.locator('button.cell').first().click();
    const view = page.locator('#case-view');
    await view.waitFor({ state: 'visible' });
    const blocks = view.locator('.block');
    assert.equal(await blocks.count(), 3);
    // In the order the API gave them: reasoning, text, then the tool call.
    assert.match(await blocks.nth(0).locator('.role').innerText(), /^reasoning$/i);
    assert.equal(await blocks.nth(0).locator('pre').innerText(), HOSTILE_THOUGHT);
    assert.equal(await blocks.nth(1).locator('pre').innerText(), 'Let me look that up.');
    const tool = blocks.nth(2);
    assert.equal(await tool.locator('.tool-name').innerText(), 'get_weather');
    assert.equal(await tool.locator('.tool-id').innerText(), 'call_hostile');
    // The arguments, pretty-printed, with the model's markup as characters.
    assert.equal(
      await tool.locator('pre.tool-args').innerText(),
      JSON.stringify(JSON.parse(HOSTILE_ARGS), null, 2),
    );
    assert.match(await view.locator('.stats.finish').innerText(), /^Finish reason: tool_calls$/);
    // The output promptfoo's rule made of text plus a call: the whole message, as JSON.
    assert.match(await view.locator('pre.output').innerText(), /"tool_calls"/);
    await page.screenshot({ path: join(ARTIFACTS, 'report-answer-blocks.png') });
    assert.equal(await page.evaluate('window.__pwned'), undefined);
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('script').count(), 2);
    await page.close();
    assert.deepEqual(pageErrors, []);
  });
});
