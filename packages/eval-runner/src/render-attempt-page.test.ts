/// <reference lib="dom" />
// An attempt's page as a person sees it: made from a real batch on the platform under test, written
// beside its report as `bvl eval report` writes them, opened in headless Chromium (Debian's chromium
// driven by playwright-core) and read back — the prompt, the rounds and their issues, the card,
// spend, the transcript seam — with every figure checked to sit under its own column heading, in
// this page and in the report. The screenshot is kept for CI at
// packages/eval-runner/test-output/<engine>/eval-attempt.png (the report's at eval-report-aligned.png).
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Platform } from '@bvl/platform';
import { type BrowserContext, chromiumPresent, launchChromium } from '@bvl/test-support/chromium';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR } from '../test/golden-support.ts';
import { openTestPlatform } from '../test/test-platform.ts';
import { MAX_TURN_CHARS, type TranscriptReader } from './attempt-transcript.ts';
import { loadGoldenCases } from './golden-case.ts';
import { attemptPageName, renderAttemptPage } from './render-attempt-page.ts';
import { renderEvalReport } from './render-eval-report.ts';
import { type AttemptView, loadAttemptViews, loadEvalReport } from './run-batch-report.ts';
import { blueprintAgent } from './run-blueprint-agent.ts';
import { runEvals } from './run-evals.ts';

const present = chromiumPresent('the browser test of the eval attempt page');
// One folder per engine: CI runs the PostgreSQL and the PGlite project at the same time, each writing its own pages.
const OUT = join(import.meta.dirname, '../test-output', process.env.BVL_TEST_ENGINE ?? 'pglite');
const PAGES = join(OUT, 'eval-report-attempts');

/** A transcript as the session store will hand it over (issue 18): turns, tool calls, one cut at its bound. */
const transcripts: TranscriptReader = async (_p, session) => ({
  turns: [
    { role: 'user', content: `Goal: build it (session ${session.id})` },
    {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'call_1', name: 'stage_draft', arguments: '{"type":"object","name":"inv_item"}' }],
      tokensIn: 1200,
      tokensOut: 80,
    },
    { role: 'tool', toolCallId: 'call_1', content: 'x'.repeat(MAX_TURN_CHARS + 25) },
  ],
  omitted: 2,
});

let platform: Platform;
let views: AttemptView[];
let report: string;
beforeAll(async () => {
  platform = await openTestPlatform();
  const cases = (await loadGoldenCases(GOLDEN_DIR)).filter((c) => c.name === 'inventory');
  const r = await runEvals({ platform, agents: [blueprintAgent()], cases, suite: 'attempt-page', defects: 'agent' });
  await mkdir(PAGES, { recursive: true });
  const input = await loadEvalReport(platform, { batch: r.batch.id });
  report = join(OUT, 'eval-report-aligned.html');
  await writeFile(report, renderEvalReport(input, { attemptHref: (a) => `eval-report-attempts/${attemptPageName(a)}` }));
  ({ views } = await loadAttemptViews(platform, r.batch.id, {}, transcripts));
  for (const v of views) await writeFile(join(PAGES, attemptPageName(v.attempt)), renderAttemptPage(v, { reportHref: '../eval-report-aligned.html' }));
});
afterAll(async () => {
  await platform.close();
});

const pageOf = (variant: string) => join(PAGES, attemptPageName(views.find((v) => v.attempt.variant === variant)!.attempt));

describe('the attempt page', () => {
  it('is self-contained and escapes what it shows', () => {
    const html = renderAttemptPage({ ...views[0]!, prompt: 'Build <script>alert(1)</script>' });
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('Build &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });

  it('says "no transcript recorded" when the session store has none', () => {
    expect(renderAttemptPage({ ...views[0]!, transcript: null })).toContain('<p class="no-transcript">No transcript recorded for this build session.</p>');
  });
});

/** Every table cell whose text does not sit under its column heading's text (tables with a head only). */
function misaligned(): string[] {
  const textRect = (el: Element): DOMRect | undefined => {
    if (!el.textContent?.trim()) return undefined;
    const range = document.createRange();
    range.selectNodeContents(el);
    const r = range.getBoundingClientRect();
    return r.width > 0 ? r : undefined;
  };
  const out: string[] = [];
  for (const table of document.querySelectorAll('table')) {
    const heads = [...table.querySelectorAll(':scope > thead > tr > th')];
    if (heads.length === 0) continue;
    for (const tr of table.querySelectorAll(':scope > tbody > tr')) {
      const cells = [...tr.children];
      if (cells.length !== heads.length) continue; // a row spanning columns (a note) has no column to sit under
      cells.forEach((cell, i) => {
        const c = textRect(cell);
        const h = textRect(heads[i]!);
        if (!c || !h) return;
        if (c.right < h.left || c.left > h.right) out.push(`${table.className}: "${cell.textContent?.trim()}" is not under "${heads[i]!.textContent?.trim()}"`);
      });
    }
  }
  return out;
}

describe.runIf(present)('the attempt page in Chromium', () => {
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ browser, close: closeBrowser } = await launchChromium({ viewport: { width: 1100, height: 900 } }));
  });
  afterAll(async () => {
    await closeBrowser?.();
  });

  it('shows the prompt, each round with its issues marked, the card, the spend and the transcript; a screenshot is kept', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const file = pageOf('movement-seeds-never-land');
    await page.goto(pathToFileURL(file).href);
    const v = views.find((x) => x.attempt.variant === 'movement-seeds-never-land')!;
    expect(await page.title()).toBe(`bvl eval — inventory / movement-seeds-never-land #1 (batch ${v.batch.id})`);
    expect(await page.locator('h1').textContent()).toBe('inventory / movement-seeds-never-land #1 — fail (expected of this agent)');
    expect(await page.locator('pre.prompt').textContent()).toBe(v.prompt);
    expect(v.prompt).toMatch(/^Build/);
    // Round 0 verified clean, round 1 published and the probes found the seed that never landed: new.
    expect(await page.$$eval('table.rounds tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)))).toEqual([
      ['0', 'verify', '0', '0', '0', '0', '0', '0', '0', '$0.0000', expect.stringMatching(/ms|s$/), ''],
      ['1', 'publish', '1', '0', '0', '1', '0', '0', '0', '$0.0000', expect.stringMatching(/ms|s$/), ''],
    ]);
    expect(
      await page.$$eval('section.round[data-round="1"] tr.issue', (trs) =>
        trs.map((tr) => [tr.getAttribute('data-state'), tr.querySelector('code')?.textContent]),
      ),
    ).toEqual([['new', 'seed_not_applied']]);
    expect(await page.locator('p.card').textContent()).toMatch(/^✓ structure · ✓ renders · ✗ \d+ rows/);
    expect(await page.locator('.tile', { hasText: 'cost' }).first().textContent()).toBe('$0.0000cost');
    // The transcript the seam handed over: each turn, the tool call, a turn cut at its bound with a marker.
    expect(await page.$$eval('.turn', (ts) => ts.map((t) => t.className))).toEqual(['turn user', 'turn assistant', 'turn tool']);
    expect(await page.locator('.turn.assistant code').textContent()).toBe('stage_draft');
    expect(await page.locator('.turn.tool pre').textContent()).toMatch(/… \[25 more characters\]$/);
    expect(await page.locator('p.meta', { hasText: 'more turns not shown' }).textContent()).toBe(
      '… 2 more turns not shown (the transcript was cut at its bound).',
    );
    expect(await page.$$eval('table.assertions tr[data-outcome="skipped"]', (trs) => trs.length)).toBe(0);
    expect(await page.$$eval('table.assertions tr[data-outcome="fail"] td:first-child', (tds) => tds.map((td) => td.textContent))).toEqual(
      expect.arrayContaining(['widgets_return_rows', 'probes_clean']),
    );
    expect(await page.evaluate(misaligned)).toEqual([]);
    expect(requests).toEqual([pathToFileURL(file).href]);
    const shot = join(OUT, 'eval-attempt.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(20_000);
  });

  it('the report links every attempt to its page, and its figures sit under their headings', async () => {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(report).href);
    const links = await page.$$eval('table.cases a', (as) => as.map((a) => a.getAttribute('href')));
    expect(links).toHaveLength(views.length);
    for (const href of links) {
      const target = await browser.newPage();
      const res = await target.goto(pathToFileURL(join(OUT, href!)).href);
      expect(res?.ok()).toBe(true);
      expect(await target.locator('h1').textContent()).toMatch(/^inventory \//);
      await target.close();
    }
    // The cases table: "passes" and "rounds" are figures; each sits under its own heading, not the next one's.
    expect(await page.evaluate(misaligned)).toEqual([]);
    const headerOf = await page.$$eval('table.cases', ([t]) => {
      const heads = [...t!.querySelectorAll('thead th')].map((th) => th.textContent);
      const row = t!.querySelector('tbody tr')!;
      return [...row.children].map((td, i) => [heads[i], (td as HTMLElement).className]);
    });
    expect(headerOf).toContainEqual(['passes', 'num']);
    await page.screenshot({ path: join(OUT, 'eval-report-aligned.png'), fullPage: true });
  });

  it('the alignment check catches a figure right-aligned under a left-aligned heading (as the report once drew its rounds)', async () => {
    const page = await browser.newPage();
    await page.setContent(
      `<style>th{text-align:left}</style><table class="rounds" style="width:900px"><thead><tr><th>round</th><th>errors</th><th>warnings</th></tr></thead><tbody><tr><td>0</td><td style="text-align:right">3</td><td>0</td></tr></tbody></table>`,
    );
    expect(await page.evaluate(misaligned)).toEqual(['rounds: "3" is not under "errors"']);
  });
});
