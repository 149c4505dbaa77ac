import { describe, expect, it } from 'vitest';
import type { IssueEvidence } from './evidence.ts';
import type { AssertionResult } from './grade.ts';
import { gradeAttempt } from './grade-attempt.ts';

const ok = (kind: AssertionResult['kind'], role?: string): AssertionResult => ({ kind, ...(role ? { role } : {}), pass: true, evidence: {} });
const no = (kind: AssertionResult['kind'], role?: string): AssertionResult => ({ ...ok(kind, role), pass: false });
const issue = (code: string, severity: 'error' | 'warning', name = 'x', path?: string): IssueEvidence => ({
  layer: 'graph',
  code,
  severity,
  artifact: { type: 'dashboard', name },
  ...(path ? { path } : {}),
});

describe('gradeAttempt', () => {
  const valid = [
    { name: 'every assertion passes and no error is left', facts: { assertions: [ok('published')], issues: [], stopReason: 'clean' } },
    {
      name: 'a warning left does not fail an attempt by itself',
      facts: { assertions: [ok('published')], issues: [issue('count_only_table', 'warning')], stopReason: 'clean' },
    },
  ];
  it.each(valid)('pass: $name', ({ facts }) => {
    expect(gradeAttempt(facts)).toEqual({ status: 'pass', failureReason: null });
  });

  const invalid = [
    {
      name: 'an error left fails even when every assertion passes',
      facts: { assertions: [ok('published')], issues: [issue('unknown_measure', 'error', 'd', '/widgets/0/values/0')], stopReason: null },
      want: { status: 'fail', failureReason: '1 error left: unknown_measure on dashboard d /widgets/0/values/0' },
    },
    {
      name: 'an unpublished build says so instead of listing every assertion about the app',
      facts: {
        assertions: [no('published'), no('object_exists', 'a'), no('probes_clean')],
        issues: [issue('dangling_dataset', 'error')],
        stopReason: 'nothing_to_fix',
      },
      want: {
        status: 'fail',
        failureReason: 'not published; 1 error left: dangling_dataset on dashboard x; 3 of 3 assertions failed; stopped: nothing_to_fix',
      },
    },
    {
      name: 'failed assertions are named, the first four',
      facts: {
        assertions: [ok('published'), no('probes_clean'), no('issues_absent'), no('seeded_rows', 'a'), no('seeded_rows', 'b'), no('no_error_boxes')],
        issues: [],
        stopReason: 'clean',
      },
      want: { status: 'fail', failureReason: 'assertions failed: probes_clean, issues_absent, seeded_rows a, seeded_rows b, and 1 more; stopped: clean' },
    },
    {
      name: 'errors past three are counted',
      facts: { assertions: [], issues: ['a', 'b', 'c', 'd'].map((n) => issue('inert_field', 'error', n)), stopReason: null },
      want: { status: 'fail', failureReason: '4 errors left: inert_field on dashboard a; inert_field on dashboard b; inert_field on dashboard c, and 1 more' },
    },
    {
      name: 'a session stopped by its budget is limit, not fail',
      facts: { assertions: [no('published')], issues: [], stopReason: 'budget' },
      want: { status: 'limit', failureReason: 'not published; 1 of 1 assertions failed; stopped: budget' },
    },
  ];
  it.each(invalid)('not a pass: $name', ({ facts, want }) => {
    expect(gradeAttempt(facts)).toEqual(want);
  });
});
