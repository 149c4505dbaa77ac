import { tenantProblem } from '@bvl/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR } from '../test/golden-support.ts';
import { type GoldenCase, loadGoldenCases } from './golden-case.ts';
import { attemptId, attemptTenant, batchOfTenant, type DefectFilter, evalCaseOf, planAttempts, planEntries } from './plan-attempts.ts';

let cases: GoldenCase[];
beforeAll(async () => {
  cases = await loadGoldenCases(GOLDEN_DIR);
});

describe('planning a batch', () => {
  it('runs each case clean, then each of its defect sets by name; the filter keeps fixer or agent sets', () => {
    const helpdesk = cases.filter((c) => c.name === 'helpdesk');
    const variants = (defects?: DefectFilter) =>
      planEntries(helpdesk, defects)
        .filter((e) => e.prompt === 'default')
        .map((e) => e.variant);
    expect(variants()).toEqual(['clean', 'inert-priority', 'urgent-view-type-list', 'widget-typos']);
    expect(variants('fixer')).toEqual(['clean', 'urgent-view-type-list', 'widget-typos']);
    expect(variants('agent')).toEqual(['clean', 'inert-priority']);
    expect(variants('none')).toEqual(['clean']);
    for (const e of planEntries(cases)) expect(e.version).toBe(cases.find((c) => c.name === e.case)!.version);
    const all = planEntries(cases);
    const prompts = (c: GoldenCase) => 1 + Object.keys(c.prompts ?? {}).length;
    expect(all.length).toBe(cases.reduce((n, c) => n + prompts(c) * (1 + Object.keys(c.defects).length), 0));
  });

  it('orders attempts epoch by epoch, so a cut-short run has tried every entry once, each by every subject', () => {
    const entries = planEntries(cases.slice(0, 2), 'none');
    expect(planAttempts(entries, [{ agent: 'blueprint', readsPrompt: false }], 2).map(attemptId)).toEqual([
      `${entries[0]!.case}/clean#1 blueprint`,
      `${entries[1]!.case}/clean#1 blueprint`,
      `${entries[0]!.case}/clean#2 blueprint`,
      `${entries[1]!.case}/clean#2 blueprint`,
    ]);
    const matrix = [
      { agent: 'openai', model: 'a' },
      { agent: 'openai', model: 'b' },
    ];
    expect(planAttempts(entries.slice(0, 1), matrix, 1).map(attemptId)).toEqual([
      `${entries[0]!.case}/clean#1 openai@a`,
      `${entries[0]!.case}/clean#1 openai@b`,
    ]);
  });

  it('runs a case’s prompt variants for an agent that reads the prompt, and gives it the variant’s words', () => {
    const helpdesk = cases.find((c) => c.name === 'helpdesk')!;
    expect(Object.keys(helpdesk.prompts ?? {})).toEqual(['terse']);
    const entries = planEntries([helpdesk], 'none');
    expect(entries.map((e) => e.prompt)).toEqual(['default', 'terse']);
    expect(planAttempts(entries, [{ agent: 'blueprint', readsPrompt: false }], 1).map((k) => k.prompt)).toEqual(['default']);
    expect(planAttempts(entries, [{ agent: 'openai', model: 'm' }], 1).map((k) => k.prompt)).toEqual(['default', 'terse']);
    expect(evalCaseOf(helpdesk, 'clean', 'terse')).toMatchObject({ prompt: helpdesk.prompts!.terse, promptVariant: 'terse' });
    expect(evalCaseOf(helpdesk, 'clean')).toMatchObject({ prompt: helpdesk.prompt, promptVariant: 'default' });
    expect(() => evalCaseOf(helpdesk, 'clean', 'verbose')).toThrow(/no prompt variant "verbose"/);
  });

  it('names each attempt a valid, deterministic tenant that tells its batch, and no other tenant a batch', () => {
    const keys = planAttempts(planEntries(cases), [{ agent: 'openai', model: 'a' }, { agent: 'blueprint' }], 3);
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
