// Debian's Chromium driven by playwright-core, for tests of the HTML report in a real browser.
// Local only: a fresh profile, no network services, no sandbox (tests run as root in CI).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser (ASSAY_CHROMIUM overrides). */
export const CHROMIUM = process.env.ASSAY_CHROMIUM ?? '/usr/bin/chromium';

/** Why browser tests cannot run here, or undefined when they can. */
export function browserMissing(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set ASSAY_CHROMIUM)`;
}

/** A browser with a fresh profile; `close` ends it and removes the profile. */
export async function launchBrowser(
  viewport = { width: 1280, height: 800 },
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'assay-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // Playwright's 30 s for a page to load or a selector to appear only ends a test that has failed:
  // a large report on a slow, loaded machine can take a good part of that, so the bound is wider.
  context.setDefaultTimeout(120_000);
  context.setDefaultNavigationTimeout(120_000);
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
