// The one way the browser tests find and start Chromium: Debian's `chromium` package driven by
// playwright-core (Playwright's own browser download does not work on these machines). Under CI a
// missing browser fails the run; elsewhere the test says, once and loudly, that it skipped.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type BrowserContextOptions, chromium } from 'playwright-core';

export type { BrowserContext };

export const CHROMIUM = '/usr/bin/chromium';

/** Whether Chromium is installed; throws under CI when it is not, else warns that `what` is skipped. */
export function chromiumPresent(what: string): boolean {
  const present = existsSync(CHROMIUM);
  if (!present && process.env.CI) throw new Error(`${CHROMIUM} is missing: CI must install it (apt-get install -y chromium)`);
  if (!present) console.warn(`\n!!! SKIPPING ${what}: ${CHROMIUM} is absent (apt-get install -y chromium) !!!\n`);
  return present;
}

/** A headless Chromium on a throwaway profile; `close` closes it and removes the profile. */
export async function launchChromium(options: BrowserContextOptions = {}): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'bvl-chromium-'));
  try {
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
      ...options,
    });
    return {
      browser,
      close: async () => {
        await browser.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await rm(profile, { recursive: true, force: true });
    throw e;
  }
}
