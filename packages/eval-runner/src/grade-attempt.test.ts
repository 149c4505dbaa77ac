import { describe, expect, it } from 'vitest';
import type { IssueEvidence } from './evidence.ts';
import type { AssertionResult } from './grade.ts';
import { gradeAttempt } from './grade-attempt.ts';

const ok = (kind: AssertionResult['kind'], role?: string): AssertionResult => ({ kind, ...(role ? { role } : {}), pass: true, outcome: 'pass', evidence: {} });
const no = (kind: AssertionResult['kind'], role?: string): AssertionResult => ({ ...ok(kind, role), pass: false, outcome: 'fail' });
const couldNot = (kind: AssertionResult['kind'], role?: string): AssertionResult => ({ ...ok(kind, role), pass: false, outcome: 'skipped' });
const ungraded = (kind: AssertionResult['kind'], role?: string): AssertionResult => ({ ...ok(kind, role), pass: false, outcome: 'ungraded' });
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
    {
      name: 'a rubric without a judge is not graded either way',
      facts: { assertions: [ok('published'), ungraded('rubric', 'r')], issues: [], stopReason: 'clean' },
    },
    // A row stored before outcomes were kept has only `pass`.
    { name: 'an old row without outcomes', facts: { assertions: [{ kind: 'published' as const, pass: true, evidence: {} }], issues: [], stopReason: 'clean' } },
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
      name: 'an unpublished build counts what failed, not what could not run after it',
      facts: {
        assertions: [no('published'), couldNot('object_exists', 'a'), couldNot('probes_clean'), ok('rounds_at_most')],
        issues: [issue('dangling_dataset', 'error')],
        stopReason: 'nothing_to_fix',
      },
      want: {
        status: 'fail',
        failureReason: 'not published; 1 error left: dangling_dataset on dashboard x; 1 assertion failed: published; 2 could not run; stopped: nothing_to_fix',
      },
    },
    {
      name: 'failed assertions are named, the first four',
      facts: {
        assertions: [ok('published'), no('probes_clean'), no('issues_absent'), no('seeded_rows', 'a'), no('seeded_rows', 'b'), no('no_error_boxes')],
        issues: [],
        stopReason: 'clean',
      },
      want: { status: 'fail', failureReason: '5 assertions failed: probes_clean, issues_absent, seeded_rows a, seeded_rows b, and 1 more; stopped: clean' },
    },
    {
      name: 'errors past three are counted',
      facts: { assertions: [], issues: ['a', 'b', 'c', 'd'].map((n) => issue('inert_field', 'error', n)), stopReason: null },
      want: { status: 'fail', failureReason: '4 errors left: inert_field on dashboard a; inert_field on dashboard b; inert_field on dashboard c, and 1 more' },
    },
    {
      name: 'a session stopped by its budget is limit, not fail',
      facts: { assertions: [no('published')], issues: [], stopReason: 'budget' },
      want: { status: 'limit', failureReason: 'not published; 1 assertion failed: published; stopped: budget' },
    },
  ];
  it.each(invalid)('not a pass: $name', ({ facts, want }) => {
    expect(gradeAttempt(facts)).toEqual(want);
  });
});
