import { describe, expect, it } from 'vitest';
import { duration, formatEvalSummary, formatProgress, percent } from './format-eval-summary.ts';
import type { EvalBatch } from './run-eval-store.ts';
import { summarizeBatch } from './summarize-batch.ts';

const batch: EvalBatch = {
  id: 12,
  suite: 'golden',
  agent: 'blueprint',
  model: null,
  endpoint: null,
  gitCommit: null,
  epochs: 2,
  plan: [
    { case: 'crm', version: 'v', variant: 'clean' },
    { case: 'crm', version: 'v', variant: 'seed-lookup-as-object' },
  ],
  status: 'finished',
  createdAt: '2026-03-15T10:00:00.000Z',
  finishedAt: '2026-03-15T10:01:00.000Z',
};
const summary = summarizeBatch(batch.plan, 2, [
  { case: 'crm', variant: 'clean', epoch: 1, status: 'pass', failureReason: null, latencyMs: 500 },
  { case: 'crm', variant: 'clean', epoch: 2, status: 'pass', failureReason: null, latencyMs: 700 },
  { case: 'crm', variant: 'seed-lookup-as-object', epoch: 1, status: 'fail', failureReason: 'not published; 1 error left', latencyMs: 100 },
  { case: 'crm', variant: 'seed-lookup-as-object', epoch: 2, status: 'pass', failureReason: null, latencyMs: 300 },
]);

describe('the terminal summary', () => {
  it('a line per entry with its failures, the totals, pass@k and pass^k, and the regressions', () => {
    const text = formatEvalSummary({
      batch,
      summary,
      wallMs: 2_500,
      complete: true,
      comparison: {
        batch: 11,
        passRate: 1,
        regressed: [{ case: 'crm', variant: 'seed-lookup-as-object', before: 1, after: 0.5, versionChanged: false }],
        improved: [],
        added: [],
      },
    });
    expect(text).toBe(
      [
        '✓ crm   clean                  2/2',
        '~ crm   seed-lookup-as-object  1/2',
        '    #1 fail: not published; 1 error left',
        '',
        'batch 12 · agent blueprint · suite golden · 4/4 attempts in 2.5 s (400 ms per attempt)',
        'pass 3 · fail 1 · error 0 · limit 0 — pass rate 75.0%',
        'pass@1 75.0% · pass@2 100.0% · pass^2 50.0%',
        'baseline batch 11: pass rate 100.0% → 75.0%',
        '  regressed (1): crm/seed-lookup-as-object 100.0% → 50.0%',
        '',
      ].join('\n'),
    );
  });

  it('says how to continue a stopped batch, and that a first batch has no baseline', () => {
    const text = formatEvalSummary({ batch, summary, complete: false, comparison: null });
    expect(text).toContain('baseline: none (the first batch of this suite and agent)');
    expect(text).toContain('stopped before the end: continue with  bvl eval --resume 12');
  });

  it('draws a progress line with the time left at the pace so far', () => {
    expect(formatProgress({ done: 6, total: 24, counts: { pass: 4, fail: 1, error: 1, limit: 0 }, elapsedMs: 3_000, ran: 6 })).toBe(
      '[██████░░░░░░░░░░░░░░░░░░] 6/24 · ✓ 4 ✗ 1 ! 1 ⧗ 0 · ~9.0 s left',
    );
    expect(formatProgress({ done: 0, total: 0, counts: { pass: 0, fail: 0, error: 0, limit: 0 }, elapsedMs: 0, ran: 0, note: 'rate limited: 1 at once' })).toBe(
      '[████████████████████████] 0/0 · ✓ 0 ✗ 0 ! 0 ⧗ 0 · rate limited: 1 at once',
    );
  });

  it('formats durations and rates', () => {
    expect([duration(850), duration(4_200), duration(185_000)]).toEqual(['850 ms', '4.2 s', '3 min 5 s']);
    expect([percent(null), percent(0.5), percent(1)]).toEqual(['–', '50.0%', '100.0%']);
  });
});
