import { describe, expect, it } from 'vitest';
import { compareBatches } from './compare-batches.ts';
import type { EvalStatus } from './grade-attempt.ts';
import type { PlanEntry } from './plan-attempts.ts';
import { type AttemptOutcome, summarizeBatch } from './summarize-batch.ts';

const plan: PlanEntry[] = [
  { case: 'crm', version: 'v1', variant: 'clean' },
  { case: 'crm', version: 'v1', variant: 'seed-typos' },
  { case: 'helpdesk', version: 'v2', variant: 'clean' },
];
const run = (c: string, variant: string, epoch: number, status: EvalStatus): AttemptOutcome => ({
  case: c,
  variant,
  epoch,
  status,
  failureReason: status === 'pass' ? null : `${status} #${epoch}`,
  latencyMs: 100 * epoch,
});

describe('summarizeBatch', () => {
  it('counts per entry and for the suite; pass@k over graded attempts (an error is the infrastructure’s)', () => {
    const s = summarizeBatch(plan, 3, [
      run('crm', 'clean', 1, 'pass'),
      run('crm', 'clean', 2, 'fail'),
      run('crm', 'clean', 3, 'pass'),
      run('crm', 'seed-typos', 1, 'error'),
      run('crm', 'seed-typos', 2, 'pass'),
      run('crm', 'seed-typos', 3, 'limit'),
    ]);
    const [clean, typos, helpdesk] = s.entries;
    expect(clean).toMatchObject({ attempts: 3, planned: 3, pass: 2, fail: 1, k: 3, passAtK: 1, failures: [{ epoch: 2, status: 'fail', reason: 'fail #2' }] });
    expect(clean!.passAt1).toBeCloseTo(2 / 3);
    expect(clean!.passHatK).toBe(0);
    expect(typos).toMatchObject({ attempts: 3, pass: 1, error: 1, limit: 1, k: 2, passAt1: 0.5, passAtK: 1, passHatK: 0 });
    expect(helpdesk).toMatchObject({ attempts: 0, passAt1: null, passAtK: null, passHatK: null, failures: [] });
    expect(s).toMatchObject({ planned: 9, attempts: 6, pass: 3, fail: 1, error: 1, limit: 1, passRate: 3 / 5, epochs: 3, meanLatencyMs: 200 });
    expect(s.passAt1).toBeCloseTo((2 / 3 + 0.5) / 2);
  });

  it('a batch with nothing graded has null rates, not zero', () => {
    const s = summarizeBatch(plan, 1, [run('crm', 'clean', 1, 'error')]);
    expect(s).toMatchObject({ passRate: null, passAt1: null, meanLatencyMs: 100 });
  });
});

describe('compareBatches', () => {
  it('lists regressed, improved and added entries; a changed case is flagged; ungraded entries are not compared', () => {
    const before = summarizeBatch(plan.slice(0, 2), 1, [run('crm', 'clean', 1, 'pass'), run('crm', 'seed-typos', 1, 'fail')]);
    const now = summarizeBatch(
      [
        { case: 'crm', version: 'v1b', variant: 'clean' },
        { case: 'crm', version: 'v1', variant: 'seed-typos' },
        { case: 'helpdesk', version: 'v2', variant: 'clean' },
        { case: 'inventory', version: 'v3', variant: 'clean' },
      ],
      1,
      [run('crm', 'clean', 1, 'fail'), run('crm', 'seed-typos', 1, 'pass'), run('helpdesk', 'clean', 1, 'pass'), run('inventory', 'clean', 1, 'error')],
    );
    expect(compareBatches(now, { batch: 7, summary: before })).toEqual({
      batch: 7,
      passRate: 0.5,
      regressed: [{ case: 'crm', variant: 'clean', before: 1, after: 0, versionChanged: true }],
      improved: [{ case: 'crm', variant: 'seed-typos', before: 0, after: 1, versionChanged: false }],
      added: [{ case: 'helpdesk', variant: 'clean' }],
    });
  });
});
