import type { BuildIssue } from '@bvl/build-issue';
import { describe, expect, it } from 'vitest';
import { caseFromSession, caseNameOf } from './case-from-session.ts';
import { parseGoldenCase } from './golden-case.ts';

const issue = (code: string, severity: 'error' | 'warning', type: string, name: string, path?: string): BuildIssue =>
  ({ layer: 'graph', severity, code, artifact: { type, name }, message: `${code} on ${name}`, ...(path ? { path } : {}) }) as BuildIssue;

const stack = {
  objects: [
    { name: 'exp_expense', label: 'Expense', fields: { amount: { type: 'number' } } },
    { name: 'exp_category', fields: {} },
  ],
  dashboards: [{ name: 'exp_spending', widgets: [] }],
};
const origin = { session: '1a2b3c4d-0000-4000-8000-000000000000', tenant: 'acme', package: 'app', recordedAt: '2026-03-15T10:00:00.000Z' };

describe('caseFromSession', () => {
  it('names a case from its goal and session, kebab-case', () => {
    expect(caseNameOf('Track expenses with a spending dashboard!', origin.session)).toBe('track-expenses-with-a-spending-1a2b3c4d');
    expect(caseNameOf('2024 budget app', origin.session)).toBe('session-2024-budget-app-1a2b3c4d');
    expect(caseNameOf('***', origin.session)).toBe('session-1a2b3c4d');
  });

  it('asserts the app the session built by its own names, and that every error it left is gone', () => {
    const { caseFile, blueprint } = caseFromSession({
      origin,
      goal: 'Track expenses with a spending dashboard',
      maxRounds: 3,
      stack,
      issues: [
        issue('unknown_measure', 'error', 'dashboard', 'exp_spending', '/widgets/0/values/0'),
        issue('unknown_measure', 'error', 'dashboard', 'exp_spending', '/widgets/0/values/0'),
        issue('seed_not_applied', 'error', 'seed', 'exp_category'),
        issue('count_only_table', 'warning', 'dashboard', 'exp_spending'),
      ],
    });
    expect(blueprint).toBe(stack);
    expect(caseFile).toMatchObject({
      name: 'track-expenses-with-a-spending-1a2b3c4d',
      prompt: 'Track expenses with a spending dashboard',
      tags: ['from-session'],
      maxRounds: 3,
      defects: {},
      origin,
    });
    expect(caseFile.assertions).toEqual([
      { kind: 'object_exists', role: 'exp_category', match: ['exp_category'] },
      { kind: 'object_exists', role: 'exp_expense', match: ['exp_expense'] },
      { kind: 'dashboard_exists', role: 'exp_spending', match: ['exp_spending'] },
      { kind: 'widgets_return_rows' },
      { kind: 'dashboards_reachable' },
      { kind: 'no_error_boxes' },
      { kind: 'no_empty_widgets' },
      { kind: 'published' },
      { kind: 'probes_clean' },
      { kind: 'rounds_at_most', max: 3 },
      {
        kind: 'issues_absent',
        issues: [
          { code: 'unknown_measure', artifact: { type: 'dashboard', name: 'exp_spending' }, path: '/widgets/0/values/0' },
          { code: 'seed_not_applied', artifact: { type: 'seed', name: 'exp_category' } },
        ],
      },
    ]);
    // The suite's own parser takes it as it is.
    const parsed = parseGoldenCase(`/cases/${caseFile.name}`, JSON.stringify(caseFile), JSON.stringify(blueprint));
    expect(parsed.origin).toEqual(origin);
  });

  it('a session that left no error records no issues_absent, and a given name wins', () => {
    const { caseFile } = caseFromSession({ origin, goal: 'Track expenses with a spending dashboard', maxRounds: 2, stack, issues: [] }, 'expenses-ok');
    expect(caseFile.name).toBe('expenses-ok');
    expect(caseFile.assertions.map((a) => a.kind)).not.toContain('issues_absent');
  });
});
