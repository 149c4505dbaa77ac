/// <reference lib="dom" />
// The HTML build-health card as a person sees it: served by a real listening server, opened in
// headless Chromium (Debian's chromium driven by playwright-core), asserted on rendered text and
// colour, with a screenshot written to test-output/<engine>/ (git-ignored).
import { mkdir, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type BrowserContext, chromiumPresent, launchChromium } from '@bvl/test-support/chromium';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE, openTestApp, stageFolder } from './test-app.ts';

const present = chromiumPresent('the browser test of the HTML card');

// One folder per engine: CI runs the PostgreSQL and the PGlite project at the same time.
const OUT = join(import.meta.dirname, '../test-output', process.env.BVL_TEST_ENGINE ?? 'pglite');

describe.runIf(present)('the HTML card in Chromium', () => {
  let t: Awaited<ReturnType<typeof openTestApp>>;
  let server: ReturnType<typeof serve>;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let url: string;
  let token: string;

  beforeAll(async () => {
    t = await openTestApp();
    const a = await t.tenant();
    token = a.token;
    await stageFolder(a.request, 'app', join(EXAMPLE, 'app'));
    expect((await a.request('app/publish', { method: 'POST' })).status).toBe(200);
    await stageFolder(a.request, 'app', join(EXAMPLE, 'drafts'));
    // A name a browser would run if the page did not escape it.
    await a.request(`app/drafts/object/${encodeURIComponent('exp_<img src=x onerror=alert(1)>')}`, { method: 'PUT', json: { fields: {} } });
    server = await new Promise((done) => {
      const s = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => done(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${a.base}/app/health`;
    ({ browser, close: closeBrowser } = await launchChromium({
      extraHTTPHeaders: { authorization: `Bearer ${token}` },
      viewport: { width: 1100, height: 900 },
    }));
  });
  afterAll(async () => {
    await closeBrowser?.();
    await new Promise((done) => server?.close(done));
    await t?.close();
  });

  it('shows the verdict, the layer marks and every issue by artifact — and runs nothing it was sent', async () => {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toMatch(/^text\/html/);

    expect(await page.title()).toMatch(/^Build health — .+ \/ app$/);
    const verdict = page.locator('[data-verdict]');
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a person sees
    expect(await verdict.innerText()).toBe('Not publishable: fix the errors below');
    expect(await verdict.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(207, 34, 46)');

    const layers = await page.locator('.layers li').allInnerTexts();
    // Incident #6 (a list view of type "list") is the spec's refusal: an error, no longer a render warning.
    expect(layers).toEqual(['✗ structure (4 errors)', '✓ renders', '✓ 9 rows', '✓ 4/4 widgets return data']);
    const failing = page.locator('[data-layer="structure"]');
    expect(await failing.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 235, 233)');

    const headings = await page.locator('section.artifact h3').allInnerTexts();
    expect(headings).toEqual(['dashboard exp_spending', 'object exp_<img src=x onerror=alert(1)>', 'view exp_expense.recent']);
    const spending = page.locator('section.artifact', { hasText: 'dashboard exp_spending' });
    const rows = await spending.locator('tr.issue').allInnerTexts();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^error\s+unknown_measure\s+\/widgets\/0\/values\/0\s+Widget "total" of dashboard "exp_spending" asks for measure "amount"/);
    expect(rows[1]).toMatch(/dangling_dataset/);
    expect(await page.getByText('Use measure "total_amount"', { exact: false }).isVisible()).toBe(true);

    // The hostile name is text on the page, not an element; nothing ran, nothing was fetched.
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(requests).toEqual([url]);

    await mkdir(OUT, { recursive: true });
    const shot = join(OUT, 'health-card.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(10_000);
  });
});
