/// <reference lib="dom" />
// The HTML eval report as a person sees it: made from two real batches on PGlite, checked as text
// (self-contained, escaped), then opened in headless Chromium (Debian's chromium driven by
// playwright-core) and asserted on what renders, with a screenshot kept in test-output/<engine>/ (git-ignored).
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Platform } from '@bvl/platform';
import { type BrowserContext, chromiumPresent, launchChromium } from '@bvl/test-support/chromium';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR, noFixer } from '../test/golden-support.ts';
import { openTestPlatform } from '../test/test-platform.ts';
import { loadGoldenCases } from './golden-case.ts';
import { renderEvalReport } from './render-eval-report.ts';
import { loadEvalReport } from './run-batch-report.ts';
import { blueprintAgent } from './run-blueprint-agent.ts';
import { runEvals } from './run-evals.ts';

const present = chromiumPresent('the browser test of the HTML eval report');

// One folder per engine: CI runs the PostgreSQL and the PGlite project at the same time, each writing its own report.
const OUT = join(import.meta.dirname, '../test-output', process.env.BVL_TEST_ENGINE ?? 'pglite');

let platform: Platform;
let html: string;
let file: string;
beforeAll(async () => {
  platform = await openTestPlatform();
  const helpdesk = (await loadGoldenCases(GOLDEN_DIR)).filter((c) => c.name === 'helpdesk');
  // A name a browser would run if the report did not escape it.
  const hostile = [{ ...helpdesk[0]!, prompt: `${helpdesk[0]!.prompt} <script>alert(1)</script>` }];
  await runEvals({ platform, agents: [blueprintAgent()], cases: hostile, suite: 'report' });
  const second = await runEvals({ platform, agents: [noFixer], cases: hostile, suite: 'report' });
  html = renderEvalReport(await loadEvalReport(platform, { batch: second.batch.id }));
  await mkdir(OUT, { recursive: true });
  file = join(OUT, 'eval-report.html');
  await writeFile(file, html);
});
afterAll(async () => {
  await platform.close();
});

describe('the HTML eval report', () => {
  it('is one self-contained page: no script, no external resource', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).toContain('<svg');
  });
});

describe.runIf(present)('the HTML eval report in Chromium', () => {
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ browser, close: closeBrowser } = await launchChromium({ viewport: { width: 1100, height: 900 } }));
  });
  afterAll(async () => {
    await closeBrowser?.();
  });

  it('shows the per-case table, the pass-rate chart over both batches, the regressions and each failure with its issues', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href);
    expect(await page.title()).toMatch(/^bvl eval — batch \d+$/);

    const rows = await page.$$eval('table.cases tr.entry', (trs) => trs.map((tr) => [tr.getAttribute('data-variant'), tr.getAttribute('data-status')]));
    expect(rows).toEqual([
      ['clean', 'pass'],
      ['inert-priority', 'fail'],
      ['urgent-view-type-list', 'fail'],
      ['widget-typos', 'fail'],
    ]);
    // Two batches of the suite: two bars, the current one highlighted, drawn with a real height.
    const bars = await page.$$eval('svg.pass-rate-chart rect.bar', (rs) =>
      rs.map((r) => ({ current: r.classList.contains('current'), height: (r as unknown as SVGGraphicsElement).getBBox().height })),
    );
    expect(bars.map((b) => b.current)).toEqual([false, true]);
    expect(bars[0]!.height).toBeGreaterThan(bars[1]!.height);
    expect(await page.$$eval('ul.regressed li', (lis) => lis.map((li) => li.textContent))).toEqual([
      'helpdesk/urgent-view-type-list 100.0% → 0.0%',
      'helpdesk/widget-typos 100.0% → 0.0%',
    ]);
    // Each failure names its issues, with the evidence of its failed assertions.
    const failures = await page.$$eval('section.failure', (ss) =>
      ss.map((s) => ({ variant: s.getAttribute('data-variant'), codes: [...s.querySelectorAll('table.issues code')].map((c) => c.textContent) })),
    );
    // inert-priority is a set only a model can repair: the case expects the blueprint agent to fail it.
    expect(failures.map((f) => f.variant)).toEqual(['urgent-view-type-list', 'widget-typos']);
    expect(await page.$$eval('ul.expected-failures li', (lis) => lis.map((li) => li.textContent))).toEqual([
      expect.stringMatching(/^helpdesk\/inert-priority #1 @ blueprint: not published; 1 error left: inert_field/),
    ]);
    expect(failures[0]!.codes).toContain('invalid_artifact');
    expect(failures[1]!.codes).toEqual(expect.arrayContaining(['unknown_measure', 'invalid_artifact']));
    expect(await page.locator('section.failure details.assertions table').count()).toBe(2);
    // The view type "list" is refused by ObjectStack's spec (an error), so neither build publishes:
    // each fails two assertions and says how many could not run after them (they are not counted
    // as failures).
    expect(await page.$$eval('section.failure details.assertions summary', (ds) => ds.map((d) => d.textContent))).toEqual([
      expect.stringMatching(/^2 failed assertions of \d+, \d+ could not run, with what was seen$/),
      expect.stringMatching(/^2 failed assertions of \d+, \d+ could not run, with what was seen$/),
    ]);
    // Nothing was fetched but the page itself.
    expect(requests).toEqual([pathToFileURL(file).href]);

    const shot = join(OUT, 'eval-report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(10_000);
  });
});
