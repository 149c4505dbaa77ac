import { describe, expect, it } from 'vitest';
import { compareBatches, unlikeBatches } from './compare-batches.ts';
import type { EvalSubject } from './eval-subject.ts';
import type { EvalStatus } from './grade-attempt.ts';
import type { PlanEntry } from './plan-attempts.ts';
import { type AttemptOutcome, summarizeBatch } from './summarize-batch.ts';

const plan: PlanEntry[] = [
  { case: 'crm', version: 'v1', variant: 'clean', prompt: 'default' },
  { case: 'crm', version: 'v1', variant: 'seed-typos', prompt: 'default' },
  { case: 'helpdesk', version: 'v2', variant: 'clean', prompt: 'default' },
];
const blueprint: EvalSubject[] = [{ agent: 'blueprint' }];
const run = (c: string, variant: string, epoch: number, status: EvalStatus, extra: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  case: c,
  variant,
  subject: 'blueprint',
  epoch,
  status,
  failureReason: status === 'pass' ? null : `${status} #${epoch}`,
  latencyMs: 100 * epoch,
  ...extra,
});

describe('summarizeBatch', () => {
  it('counts per entry and for the suite; pass@k over graded attempts (an error is the infrastructure’s)', () => {
    const s = summarizeBatch({ plan, subjects: blueprint, epochs: 3 }, [
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
    const s = summarizeBatch({ plan, subjects: blueprint, epochs: 1 }, [run('crm', 'clean', 1, 'error')]);
    expect(s).toMatchObject({ passRate: null, passAt1: null, meanLatencyMs: 100 });
  });

  it('a matrix: each subject its own entries and figures side by side; tokens and cost per batch, case and subject', () => {
    const subjects: EvalSubject[] = [
      { agent: 'openai', model: 'model-a' },
      { agent: 'openai', model: 'model-b' },
    ];
    const spend = (tokens: number, cost: number, judge = 0) => ({
      tokensIn: tokens,
      tokensOut: tokens / 10,
      costUsd: cost,
      judgeUsage: { tokensIn: judge, tokensOut: 0, costUsd: judge / 1000 },
    });
    const s = summarizeBatch({ plan: plan.slice(0, 2), subjects, epochs: 1 }, [
      run('crm', 'clean', 1, 'pass', { subject: 'openai@model-a', repairRounds: 0, ...spend(1000, 0.01, 100) }),
      run('crm', 'seed-typos', 1, 'pass', { subject: 'openai@model-a', repairRounds: 1, ...spend(2000, 0.02) }),
      run('crm', 'clean', 1, 'fail', { subject: 'openai@model-b', repairRounds: 2, ...spend(500, 0.001) }),
      run('crm', 'seed-typos', 1, 'fail', { subject: 'openai@model-b', repairRounds: 2, expected: 'fail', ...spend(500, 0.001) }),
    ]);
    expect(s.entries.map((e) => `${e.variant}@${e.subject}:${e.pass}/${e.attempts}`)).toEqual([
      'clean@openai@model-a:1/1',
      'clean@openai@model-b:0/1',
      'seed-typos@openai@model-a:1/1',
      'seed-typos@openai@model-b:0/1',
    ]);
    expect(s.subjects).toMatchObject([
      {
        subject: 'openai@model-a',
        model: 'model-a',
        planned: 2,
        pass: 2,
        passRate: 1,
        passAt1: 1,
        meanRounds: 0.5,
        tokensIn: 3000,
        costUsd: 0.03,
        judgeCostUsd: 0.1,
      },
      { subject: 'openai@model-b', model: 'model-b', planned: 2, pass: 0, passRate: 0, meanRounds: 2, tokensIn: 1000, expectedFail: 1, unexpectedFail: 1 },
    ]);
    expect(s).toMatchObject({ planned: 4, tokensIn: 4000, tokensOut: 400, judgeTokensIn: 100, expectedFail: 1, unexpectedFail: 1, unexpectedPass: 0 });
    expect(s.costUsd).toBeCloseTo(0.032);
    expect(s.cases).toEqual([
      { case: 'crm', attempts: 4, tokensIn: 4000, tokensOut: 400, costUsd: expect.closeTo(0.032), judgeTokensIn: 100, judgeTokensOut: 0, judgeCostUsd: 0.1 },
    ]);
  });

  it('a subject that does not read the prompt runs only the default prompt of a case with prompt variants', () => {
    const withTerse: PlanEntry[] = [
      { case: 'helpdesk', version: 'v', variant: 'clean', prompt: 'default' },
      { case: 'helpdesk', version: 'v', variant: 'clean', prompt: 'terse' },
    ];
    const s = summarizeBatch(
      {
        plan: withTerse,
        subjects: [
          { agent: 'blueprint', readsPrompt: false },
          { agent: 'openai', model: 'm' },
        ],
        epochs: 2,
      },
      [],
    );
    expect(s.entries.map((e) => `${e.prompt}@${e.subject}`)).toEqual(['default@blueprint', 'default@openai@m', 'terse@openai@m']);
    expect(s.planned).toBe(6);
  });
});

describe('compareBatches', () => {
  it('lists regressed, improved and added entries like with like; a changed case is flagged; ungraded entries are not compared', () => {
    const before = summarizeBatch({ plan: plan.slice(0, 2), subjects: blueprint, epochs: 1 }, [
      run('crm', 'clean', 1, 'pass'),
      run('crm', 'seed-typos', 1, 'fail'),
    ]);
    const now = summarizeBatch(
      {
        plan: [
          { case: 'crm', version: 'v1b', variant: 'clean', prompt: 'default' },
          { case: 'crm', version: 'v1', variant: 'seed-typos', prompt: 'default' },
          { case: 'helpdesk', version: 'v2', variant: 'clean', prompt: 'default' },
          { case: 'inventory', version: 'v3', variant: 'clean', prompt: 'default' },
        ],
        subjects: blueprint,
        epochs: 1,
      },
      [run('crm', 'clean', 1, 'fail'), run('crm', 'seed-typos', 1, 'pass'), run('helpdesk', 'clean', 1, 'pass'), run('inventory', 'clean', 1, 'error')],
    );
    const at = { prompt: 'default', subject: 'blueprint' };
    expect(compareBatches(now, { batch: 7, summary: before })).toEqual({
      batch: 7,
      passRate: 0.5,
      currentPassRate: 0.5,
      compared: 2,
      regressed: [{ case: 'crm', variant: 'clean', ...at, before: 1, after: 0, versionChanged: true }],
      improved: [{ case: 'crm', variant: 'seed-typos', ...at, before: 0, after: 1, versionChanged: false }],
      added: [{ case: 'helpdesk', variant: 'clean', ...at }],
      unlike: [],
    });
  });

  it('compares only the same subject: another model is not a regression of this one, and the rates are over what both ran', () => {
    const a = summarizeBatch({ plan: plan.slice(0, 1), subjects: [{ agent: 'openai', model: 'a' }], epochs: 1 }, [
      run('crm', 'clean', 1, 'pass', { subject: 'openai@a' }),
    ]);
    const b = summarizeBatch({ plan: plan.slice(0, 1), subjects: [{ agent: 'openai', model: 'b' }], epochs: 1 }, [
      run('crm', 'clean', 1, 'fail', { subject: 'openai@b' }),
    ]);
    expect(compareBatches(b, { batch: 3, summary: a })).toMatchObject({
      compared: 0,
      regressed: [],
      passRate: null,
      currentPassRate: null,
      added: [{ subject: 'openai@b' }],
    });
  });

  it('says what differs between two batches: suite, subjects, defect sets', () => {
    const base = { id: 4, suite: 'golden', subjects: [{ agent: 'blueprint' }], defects: 'fixer' };
    expect(unlikeBatches({ ...base, id: 5 }, base)).toEqual([]);
    expect(unlikeBatches({ id: 5, suite: 'nightly', subjects: [{ agent: 'openai', model: 'm' }, { agent: 'blueprint' }], defects: 'all' }, base)).toEqual([
      'batch 4 is of suite "golden", this one of "nightly"',
      'batch 4 did not run openai@m: not compared',
      'batch 4 ran defect sets "fixer", this one "all": only the entries both ran are compared',
    ]);
    expect(unlikeBatches({ ...base, id: 5 }, { ...base, defects: null })).toEqual([
      'batch 4 does not record which defect sets it ran: only the entries both ran are compared',
    ]);
  });
});
