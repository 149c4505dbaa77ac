import { tenantProblem } from '@bvl/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR } from '../test/golden-support.ts';
import { type GoldenCase, loadGoldenCases } from './golden-case.ts';
import { attemptId, attemptTenant, batchOfTenant, evalCaseOf, planAttempts, planEntries } from './plan-attempts.ts';

let cases: GoldenCase[];
beforeAll(async () => {
  cases = await loadGoldenCases(GOLDEN_DIR);
});

describe('planning a batch', () => {
  it('runs each case clean, then each of its defect sets by name; the filter keeps fixer or agent sets', () => {
    const helpdesk = cases.filter((c) => c.name === 'helpdesk');
    expect(planEntries(helpdesk).map((e) => e.variant)).toEqual(['clean', 'inert-priority', 'urgent-view-type-list', 'widget-typos']);
    expect(planEntries(helpdesk, 'fixer').map((e) => e.variant)).toEqual(['clean', 'urgent-view-type-list', 'widget-typos']);
    expect(planEntries(helpdesk, 'agent').map((e) => e.variant)).toEqual(['clean', 'inert-priority']);
    expect(planEntries(helpdesk, 'none').map((e) => e.variant)).toEqual(['clean']);
    for (const e of planEntries(cases)) expect(e.version).toBe(cases.find((c) => c.name === e.case)!.version);
    const all = planEntries(cases);
    expect(all.length).toBe(cases.length + cases.reduce((n, c) => n + Object.keys(c.defects).length, 0));
  });

  it('orders attempts epoch by epoch, so a cut-short run has tried every entry once', () => {
    const entries = planEntries(cases.slice(0, 2), 'none');
    expect(planAttempts(entries, 2).map(attemptId)).toEqual([
      `${entries[0]!.case}/clean#1`,
      `${entries[1]!.case}/clean#1`,
      `${entries[0]!.case}/clean#2`,
      `${entries[1]!.case}/clean#2`,
    ]);
  });

  it('names each attempt a valid, deterministic tenant that tells its batch, and no other tenant a batch', () => {
    const keys = planAttempts(planEntries(cases), 3);
    const tenants = keys.map((k) => attemptTenant(123456789, k));
    expect(new Set(tenants).size).toBe(keys.length);
    for (const t of tenants) {
      expect(tenantProblem(t)).toBeUndefined();
      expect(batchOfTenant(t)).toBe(123456789);
    }
    expect(attemptTenant(7, keys[0]!)).toBe(attemptTenant(7, { ...keys[0]! }));
    for (const other of ['default', 'bvl_eval_x_0123456789', 'bvl_eval_7_012345678', 'ev_7_0123456789', 'bvl_eval_7_0123456789_x'])
      expect(batchOfTenant(other)).toBeUndefined();
  });

  it('gives an agent the blueprint with the defect set applied, and the set itself', () => {
    const c = cases.find((x) => x.name === 'expense-tracker')!;
    const clean = evalCaseOf(c, 'clean');
    expect(clean.start).toBe(c.blueprint);
    expect(clean.defect).toBeUndefined();
    const broken = evalCaseOf(c, 'adr-0038-incidents');
    expect(broken.defect).toBe(c.defects['adr-0038-incidents']);
    expect(broken.start).not.toEqual(c.blueprint);
    expect(() => evalCaseOf(c, 'no-such-set')).toThrow(/no defect set/);
  });
});
