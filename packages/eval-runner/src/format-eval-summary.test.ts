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
  subjects: [{ agent: 'blueprint' }],
  defects: 'all',
  epochs: 2,
  plan: [
    { case: 'crm', version: 'v', variant: 'clean', prompt: 'default' },
    { case: 'crm', version: 'v', variant: 'seed-lookup-as-object', prompt: 'default' },
  ],
  status: 'finished',
  createdAt: '2026-03-15T10:00:00.000Z',
  finishedAt: '2026-03-15T10:01:00.000Z',
};
const summary = summarizeBatch(batch, [
  { case: 'crm', variant: 'clean', epoch: 1, status: 'pass', failureReason: null, latencyMs: 500 },
  { case: 'crm', variant: 'clean', epoch: 2, status: 'pass', failureReason: null, latencyMs: 700 },
  { case: 'crm', variant: 'seed-lookup-as-object', epoch: 1, status: 'fail', failureReason: 'not published; 1 error left', latencyMs: 100 },
  { case: 'crm', variant: 'seed-lookup-as-object', epoch: 2, status: 'pass', failureReason: null, latencyMs: 300 },
]);
const at = { prompt: 'default', subject: 'blueprint' };

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
        currentPassRate: 0.75,
        compared: 2,
        regressed: [{ case: 'crm', variant: 'seed-lookup-as-object', ...at, before: 1, after: 0.5, versionChanged: false }],
        improved: [],
        added: [],
        unlike: ['batch 11 ran defect sets "fixer", this one "all": only the entries both ran are compared'],
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
        'baseline batch 11 (2 entries like with like): pass rate 100.0% → 75.0%',
        '  unlike: batch 11 ran defect sets "fixer", this one "all": only the entries both ran are compared',
        '  regressed (1): crm/seed-lookup-as-object 100.0% → 50.0%',
        '',
      ].join('\n'),
    );
  });

  it('says how to continue a stopped batch, and that a first batch has no baseline', () => {
    const text = formatEvalSummary({ batch, summary, complete: false, comparison: null });
    expect(text).toContain('baseline: none (no earlier finished batch of this suite, its defect sets and its subjects)');
    expect(text).toContain('stopped before the end: continue with  bvl eval --resume 12');
  });

  it('a matrix: entries name their subject and prompt; subjects side by side; expected failures apart; what was spent', () => {
    const matrix: EvalBatch = {
      ...batch,
      agent: 'openai',
      model: 'model-a,model-b',
      subjects: [
        { agent: 'openai', model: 'model-a' },
        { agent: 'openai', model: 'model-b' },
      ],
      epochs: 1,
      plan: [
        { case: 'helpdesk', version: 'v', variant: 'clean', prompt: 'default' },
        { case: 'helpdesk', version: 'v', variant: 'clean', prompt: 'terse' },
      ],
    };
    const usage = { tokensIn: 12_000, tokensOut: 800, costUsd: 0.0125 };
    const s = summarizeBatch(matrix, [
      {
        case: 'helpdesk',
        variant: 'clean',
        prompt: 'default',
        subject: 'openai@model-a',
        epoch: 1,
        status: 'pass',
        failureReason: null,
        latencyMs: 2_000,
        repairRounds: 0,
        ...usage,
      },
      {
        case: 'helpdesk',
        variant: 'clean',
        prompt: 'terse',
        subject: 'openai@model-a',
        epoch: 1,
        status: 'pass',
        failureReason: null,
        latencyMs: 2_000,
        repairRounds: 1,
        ...usage,
      },
      {
        case: 'helpdesk',
        variant: 'clean',
        prompt: 'default',
        subject: 'openai@model-b',
        epoch: 1,
        status: 'fail',
        failureReason: 'not published',
        latencyMs: 1_000,
        repairRounds: 2,
        ...usage,
      },
      {
        case: 'helpdesk',
        variant: 'clean',
        prompt: 'terse',
        subject: 'openai@model-b',
        epoch: 1,
        status: 'fail',
        expected: 'fail',
        failureReason: 'x',
        latencyMs: 1_000,
        repairRounds: 2,
        ...usage,
      },
    ]);
    const text = formatEvalSummary({ batch: matrix, summary: s, complete: true, comparison: null });
    expect(text.split('\n').slice(0, 6)).toEqual([
      '✓ helpdesk  clean @ openai@model-a         1/1',
      '✗ helpdesk  clean @ openai@model-b         0/1',
      '    #1 fail: not published',
      '✓ helpdesk  clean ~terse @ openai@model-a  1/1',
      '✗ helpdesk  clean ~terse @ openai@model-b  0/1  (expected of openai)',
      '',
    ]);
    expect(text).toContain('batch 12 · 2 subjects · suite golden · 4/4 attempts');
    expect(text).toContain('failures: 1 unexpected, 1 expected of the agent');
    expect(text).toContain('spent: 48,000 tokens in · 3,200 out · $0.0500');
    expect(text).toContain(
      [
        'subject         pass  pass rate  pass@1  rounds  tokens     cost  latency',
        'openai@model-a   2/2     100.0%  100.0%     0.5  25,600  $0.0250    2.0 s',
        'openai@model-b   0/2       0.0%    0.0%     2.0  25,600  $0.0250    1.0 s',
      ].join('\n'),
    );
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
