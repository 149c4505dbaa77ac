import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { describe, expect, it } from 'vitest';
import { planFixes } from './plan-fixes.ts';

const measure = (path: string, value: string, fixSafety: 'safe' | 'unsafe' = 'safe', name = 'spending'): BuildIssue =>
  makeIssue({
    code: 'unknown_measure',
    artifact: { type: 'dashboard', name },
    ref: { type: 'dashboard', name, member: path },
    message: 'm',
    path,
    patch: [{ op: 'replace', path, value }],
    fixSafety,
  });

describe('planFixes', () => {
  it('takes safe patches, grouped and sorted by artifact; leaves unsafe ones to the agent unless asked', () => {
    const issues = [
      measure('/widgets/1/values/0', 'total', 'unsafe'),
      measure('/widgets/0/values/0', 'count', 'safe', 'zeta'),
      measure('/widgets/0/values/0', 'sum'),
    ];
    const plan = planFixes(issues);
    expect(plan.fixes.map((f) => [f.artifact.name, f.ops.map((o) => o.path)])).toEqual([
      ['spending', ['/widgets/0/values/0']],
      ['zeta', ['/widgets/0/values/0']],
    ]);
    expect(plan.skipped.map((s) => [s.issue.path, s.reason])).toEqual([['/widgets/1/values/0', 'unsafe']]);
    expect(planFixes(issues, { unsafe: true }).fixes[0]!.ops).toHaveLength(2);
  });

  it('never guesses between two patches that write one path differently; applies identical ones once', () => {
    const plan = planFixes([
      measure('/widgets/0/values/0', 'a'),
      measure('/widgets/0/values/0', 'b'),
      measure('/widgets/2/values/0', 'c'),
      measure('/widgets/2/values/0', 'c'),
    ]);
    expect(plan.fixes).toHaveLength(1);
    expect(plan.fixes[0]!.ops).toEqual([{ op: 'replace', path: '/widgets/2/values/0', value: 'c' }]);
    expect(plan.fixes[0]!.fixes).toHaveLength(1);
    expect(plan.skipped.map((s) => s.reason)).toEqual(['conflict', 'conflict']);
  });

  it('ignores issues without a patch', () => {
    expect(planFixes([makeIssue({ code: 'dangling_dataset', artifact: { type: 'dashboard', name: 'd' }, message: 'm' })])).toEqual({ fixes: [], skipped: [] });
  });
});
