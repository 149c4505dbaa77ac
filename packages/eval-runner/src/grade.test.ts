import { describe, expect, it } from 'vitest';
import type { Assertion } from './case-file.ts';
import type { Evidence } from './evidence.ts';
import { gradeAssertions } from './grade.ts';
import { emptyApp } from './summarize-graph.ts';

// gradeAssertions is pure: these tables grade hand-written evidence, no database. Each failing
// row changes the passing evidence in one way and lists exactly what the grader must say.
const ASSERTIONS: Assertion[] = [
  { kind: 'object_exists', role: 'ticket', match: ['ticket', 'case'], exclude: ['comment'] },
  { kind: 'object_exists', role: 'agent', match: ['agent'] },
  { kind: 'view_exists', role: 'board', objectRole: 'ticket', viewType: 'kanban' },
  { kind: 'view_exists', role: 'ticket_form', objectRole: 'ticket', viewKind: 'form' },
  { kind: 'view_exists', role: 'urgent', objectRole: 'ticket', match: ['urgent'] },
  { kind: 'dashboard_exists', role: 'support', match: ['support'], minWidgets: 2 },
  { kind: 'seeded_rows', objectRole: 'ticket', min: 10 },
  { kind: 'widgets_return_rows', dashboardRole: 'support' },
  { kind: 'widgets_return_rows' },
  { kind: 'no_error_boxes' },
  { kind: 'no_empty_widgets' },
  { kind: 'dashboards_reachable' },
  { kind: 'published' },
  { kind: 'probes_clean' },
  { kind: 'rounds_at_most', max: 2 },
];

const widget = (id: string, rows: number, extra: Record<string, unknown> = {}) => ({ id, rows, errorBoxes: 0, emptyWidgets: 0, noData: 0, ...extra });
const EVIDENCE: Evidence = {
  published: true,
  rounds: 1,
  app: {
    objects: [
      { name: 'hd_agent', label: 'Support agent', fields: 3 },
      { name: 'hd_comment', label: 'Ticket comment', fields: 4 },
      { name: 'hd_ticket', label: 'Ticket', pluralLabel: 'Tickets', fields: 9 },
    ],
    views: [
      { name: 'hd_ticket.board', object: 'hd_ticket', key: 'board', kind: 'list', type: 'kanban', label: 'Ticket board' },
      { name: 'hd_ticket.default', object: 'hd_ticket', key: 'default', kind: 'list', label: 'All tickets' },
      { name: 'hd_ticket.form', object: 'hd_ticket', key: 'form', kind: 'form' },
      { name: 'hd_ticket.urgent', object: 'hd_ticket', key: 'urgent', kind: 'list', type: 'grid', label: 'Urgent and high' },
    ],
    dashboards: [
      {
        name: 'hd_support',
        label: 'Support overview',
        widgets: [
          { id: 'open', type: 'metric', dataset: 'm' },
          { id: 'by_status', type: 'bar', dataset: 'm' },
        ],
      },
    ],
    navigation: { apps: ['hd_app'], objects: ['hd_ticket'], dashboards: ['hd_support'] },
  },
  rowCounts: { hd_agent: 4, hd_comment: 7, hd_ticket: 12 },
  seedApplied: { success: true, inserted: 23, updated: 0, skipped: 0, errors: 0 },
  probes: { issues: [], checked: { seeds: 3, views: 4, widgets: 2, objects: 3 }, total: { seeds: 3, views: 4, widgets: 2, objects: 3 } },
  dom: {
    artifacts: [
      { type: 'view', name: 'hd_ticket.board', errorBoxes: 0, unknownTypes: [], emptyWidgets: 0, noData: 0, components: 1, rows: 12 },
      {
        type: 'dashboard',
        name: 'hd_support',
        errorBoxes: 0,
        unknownTypes: [],
        emptyWidgets: 0,
        noData: 0,
        components: 2,
        widgets: [widget('open', 1), widget('by_status', 4)],
      },
    ],
    errorBoxes: 0,
    emptyWidgets: 0,
  },
};

const failing = (ev: Evidence) =>
  gradeAssertions(ASSERTIONS, ev)
    .filter((r) => !r.pass)
    .map((r) => ({ kind: r.kind, ...(r.role ? { role: r.role } : {}), evidence: r.evidence }));

describe('gradeAssertions', () => {
  it('passes every assertion on good evidence, in order, saying what it saw', () => {
    const results = gradeAssertions(ASSERTIONS, EVIDENCE);
    expect(results.map((r) => [r.kind, r.role, r.pass])).toEqual(
      ASSERTIONS.map((a) => [a.kind, 'role' in a ? a.role : 'objectRole' in a ? a.objectRole : 'dashboardRole' in a ? a.dashboardRole : undefined, true]),
    );
    expect(results[0]).toEqual({ kind: 'object_exists', role: 'ticket', pass: true, outcome: 'pass', evidence: { matched: ['hd_ticket'], objects: 3 } });
    expect(results[2]).toEqual({
      kind: 'view_exists',
      role: 'board',
      pass: true,
      outcome: 'pass',
      evidence: { matched: ['hd_ticket.board'], objects: ['hd_ticket'], views: 4 },
    });
    expect(results[6]).toEqual({ kind: 'seeded_rows', role: 'ticket', pass: true, outcome: 'pass', evidence: { min: 10, rows: { hd_ticket: 12 } } });
    expect(results[7]?.evidence).toEqual({ dashboards: ['hd_support'], widgets: 2, returnedRows: 2, empty: [], failed: [], probeIssues: [] });
  });

  const table: Array<[string, (ev: Evidence) => Evidence, ReturnType<typeof failing>]> = [
    [
      'the objects are named another way',
      (ev) => ({
        ...ev,
        app: { ...ev.app, objects: ev.app.objects.map((o) => (o.name === 'hd_ticket' ? { name: 'hd_request', label: 'Request', fields: 9 } : o)) },
      }),
      [
        { kind: 'object_exists', role: 'ticket', evidence: { matched: [], objects: 3 } },
        { kind: 'view_exists', role: 'board', evidence: { matched: [], objects: [], views: 4 } },
        { kind: 'view_exists', role: 'ticket_form', evidence: { matched: [], objects: [], views: 4 } },
        { kind: 'view_exists', role: 'urgent', evidence: { matched: [], objects: [], views: 4 } },
        { kind: 'seeded_rows', role: 'ticket', evidence: { min: 10, rows: {} } },
      ],
    ],
    [
      'the board is a grid',
      (ev) => ({ ...ev, app: { ...ev.app, views: ev.app.views.map((v) => (v.key === 'board' ? { ...v, type: 'grid' } : v)) } }),
      [{ kind: 'view_exists', role: 'board', evidence: { matched: [], objects: ['hd_ticket'], views: 4 } }],
    ],
    [
      'too few rows landed',
      (ev) => ({ ...ev, rowCounts: { ...ev.rowCounts, hd_ticket: 3 } }),
      [{ kind: 'seeded_rows', role: 'ticket', evidence: { min: 10, rows: { hd_ticket: 3 } } }],
    ],
    [
      'a widget returns no rows and the probes say empty_query',
      (ev) => ({
        ...ev,
        probes: {
          ...ev.probes!,
          issues: [{ code: 'empty_query', severity: 'error', artifact: { type: 'dashboard', name: 'hd_support' }, member: 'by_status' }],
        },
        dom: { ...ev.dom!, artifacts: ev.dom!.artifacts.map((a) => (a.widgets ? { ...a, widgets: [widget('open', 1), widget('by_status', 0)] } : a)) },
      }),
      [
        {
          kind: 'widgets_return_rows',
          role: 'support',
          evidence: {
            dashboards: ['hd_support'],
            widgets: 2,
            returnedRows: 1,
            empty: ['hd_support.by_status'],
            failed: [],
            probeIssues: [{ code: 'empty_query', widget: 'hd_support.by_status' }],
          },
        },
        {
          kind: 'widgets_return_rows',
          evidence: {
            dashboards: ['hd_support'],
            widgets: 2,
            returnedRows: 1,
            empty: ['hd_support.by_status'],
            failed: [],
            probeIssues: [{ code: 'empty_query', widget: 'hd_support.by_status' }],
          },
        },
        {
          kind: 'probes_clean',
          evidence: { errors: [{ code: 'empty_query', artifact: 'dashboard hd_support.by_status' }], checked: EVIDENCE.probes!.checked },
        },
      ],
    ],
    [
      'a red box and an empty widget are swept',
      (ev) => ({
        ...ev,
        dom: {
          errorBoxes: 1,
          emptyWidgets: 1,
          artifacts: [
            { type: 'view', name: 'hd_ticket.urgent', errorBoxes: 1, unknownTypes: ['(none)'], emptyWidgets: 0, noData: 0, components: 0 },
            { ...ev.dom!.artifacts[1]!, emptyWidgets: 1 },
          ],
        },
      }),
      [
        {
          kind: 'no_error_boxes',
          evidence: { swept: 2, errorBoxes: 1, where: [{ type: 'view', name: 'hd_ticket.urgent', errorBoxes: 1, unknownTypes: ['(none)'] }] },
        },
        { kind: 'no_empty_widgets', evidence: { swept: 2, emptyWidgets: 1, where: [{ type: 'dashboard', name: 'hd_support', emptyWidgets: 1 }] } },
      ],
    ],
    [
      'the dashboard is not in any navigation',
      (ev) => ({ ...ev, app: { ...ev.app, navigation: { ...ev.app.navigation, dashboards: ['hd_old'] } } }),
      [{ kind: 'dashboards_reachable', evidence: { dashboards: ['hd_support'], unreachable: ['hd_support'], apps: ['hd_app'] } }],
    ],
    ['more rounds than allowed', (ev) => ({ ...ev, rounds: 3 }), [{ kind: 'rounds_at_most', evidence: { rounds: 3, max: 2 } }]],
    [
      'nothing was gathered: no sweep, no probes, no rounds',
      ({ dom: _d, probes: _p, rounds: _r, ...ev }) => ev,
      [
        { kind: 'widgets_return_rows', role: 'support', evidence: { reason: 'the DOM sweep was not gathered' } },
        { kind: 'widgets_return_rows', evidence: { reason: 'the DOM sweep was not gathered' } },
        { kind: 'no_error_boxes', evidence: { reason: 'the DOM sweep was not gathered' } },
        { kind: 'no_empty_widgets', evidence: { reason: 'the DOM sweep was not gathered' } },
        { kind: 'probes_clean', evidence: { reason: 'the L3 probe report was not gathered' } },
        { kind: 'rounds_at_most', evidence: { rounds: null, max: 2 } },
      ],
    ],
  ];
  it.each(table)('fails exactly what breaks when %s', (_name, change, expected) => {
    expect(failing(change(structuredClone(EVIDENCE)))).toEqual(expected);
  });

  it('on a package that never published, "published" fails and what looks at the app could not run: a summary counts one failure, not fourteen', () => {
    const ev: Evidence = {
      published: false,
      rounds: 2,
      app: emptyApp(),
      rowCounts: {},
      probes: { issues: [], checked: { seeds: 0, views: 0, widgets: 0, objects: 0 }, total: { seeds: 0, views: 0, widgets: 0, objects: 0 } },
      dom: { artifacts: [], errorBoxes: 0, emptyWidgets: 0 },
    };
    const results = gradeAssertions(ASSERTIONS, ev);
    expect(results.filter((r) => r.pass).map((r) => r.kind)).toEqual(['rounds_at_most']);
    expect(results.filter((r) => r.outcome === 'fail').map((r) => r.kind)).toEqual(['published']);
    expect(results.filter((r) => r.outcome === 'skipped')).toHaveLength(ASSERTIONS.length - 2);
    expect(results.find((r) => r.kind === 'probes_clean')?.evidence).toEqual({ reason: 'the app was not published' });
  });

  it('a reference to a role no assertion declares fails instead of passing vacuously', () => {
    expect(gradeAssertions([{ kind: 'seeded_rows', objectRole: 'ghost', min: 1 }], EVIDENCE)).toEqual([
      { kind: 'seeded_rows', role: 'ghost', pass: false, outcome: 'fail', evidence: { reason: 'role "ghost" is not declared by an object_exists assertion' } },
    ]);
  });

  it('a dashboard role with too few widgets fails, and matching ignores an excluded term', () => {
    const [dash] = gradeAssertions([{ kind: 'dashboard_exists', role: 'support', match: ['support'], minWidgets: 3 }], EVIDENCE);
    expect(dash).toEqual({
      kind: 'dashboard_exists',
      role: 'support',
      pass: false,
      outcome: 'fail',
      evidence: { matched: [{ name: 'hd_support', widgets: 2 }], minWidgets: 3 },
    });
    const [comments] = gradeAssertions([{ kind: 'object_exists', role: 'comment', match: ['ticket'], exclude: ['ticket'] }], EVIDENCE);
    expect(comments?.pass).toBe(false);
  });

  it('issues_absent passes when none of its issues is left (code, artifact, and path when given), and fails naming those that are', () => {
    const absent: Assertion = {
      kind: 'issues_absent',
      issues: [
        { code: 'unknown_measure', artifact: { type: 'dashboard', name: 'hd_support' }, path: '/widgets/0/values/0' },
        { code: 'seed_not_applied', artifact: { type: 'seed', name: 'hd_agent' } },
      ],
    };
    const left = (issues: Evidence['issues']): Evidence => ({ ...EVIDENCE, ...(issues ? { issues } : {}) });
    const issue = (code: string, type: string, name: string, path?: string) => ({
      layer: 'graph',
      code,
      severity: 'error' as const,
      artifact: { type, name },
      ...(path ? { path } : {}),
    });
    expect(gradeAssertions([absent], left([]))).toEqual([{ kind: 'issues_absent', pass: true, outcome: 'pass', evidence: { expectedGone: 2, remaining: [] } }]);
    // Same code and artifact at another path is another issue.
    expect(gradeAssertions([absent], left([issue('unknown_measure', 'dashboard', 'hd_support', '/widgets/1/values/0')]))[0]?.pass).toBe(true);
    expect(
      gradeAssertions(
        [absent],
        left([issue('unknown_measure', 'dashboard', 'hd_support', '/widgets/0/values/0'), issue('seed_not_applied', 'seed', 'hd_agent')]),
      ),
    ).toEqual([
      {
        kind: 'issues_absent',
        pass: false,
        outcome: 'fail',
        evidence: { expectedGone: 2, remaining: ['unknown_measure dashboard hd_support /widgets/0/values/0', 'seed_not_applied seed hd_agent'] },
      },
    ]);
    expect(gradeAssertions([absent], left(undefined))).toEqual([
      { kind: 'issues_absent', pass: false, outcome: 'skipped', evidence: { reason: 'the list of issues left at the end was not gathered' } },
    ]);
  });

  it('widgets_show_numbers passes when every swept widget shows its query’s numbers, and names those that do not (or where the oracle disagrees)', () => {
    const shows = (missing: string[] = []) => ({ checked: 3, missing, missingCount: missing.length });
    const withWidgets = (widgets: ReturnType<typeof widget>[]): Evidence => ({
      ...EVIDENCE,
      dom: { ...EVIDENCE.dom!, artifacts: EVIDENCE.dom!.artifacts.map((a) => (a.widgets ? { ...a, widgets } : a)) },
    });
    const a: Assertion = { kind: 'widgets_show_numbers' };
    expect(gradeAssertions([a], withWidgets([widget('open', 1, { shows: shows() }), widget('by_status', 4, { shows: shows() })]))[0]).toEqual({
      kind: 'widgets_show_numbers',
      pass: true,
      outcome: 'pass',
      evidence: { widgets: 2, checked: 2, values: 6, wrong: [] },
    });
    const [wrong] = gradeAssertions(
      [a],
      withWidgets([
        widget('open', 1, { shows: shows(['open_count=12 (row 1)']) }),
        widget('by_status', 4, { shows: shows(), oracle: { name: 'objectstack', agrees: false, differences: ['count: [1, 2] here, [1, 3] there'] } }),
      ]),
    );
    expect(wrong).toMatchObject({
      outcome: 'fail',
      evidence: {
        wrong: [{ widget: 'hd_support.open', missing: ['open_count=12 (row 1)'], missingCount: 1 }],
        oracle: { asked: 1, disagree: [{ widget: 'hd_support.by_status', oracle: 'objectstack', differences: ['count: [1, 2] here, [1, 3] there'] }] },
      },
    });
    // No widget was checked (every query failed): nothing shown is not everything shown.
    expect(gradeAssertions([a], withWidgets([widget('open', 0, { error: 'boom' })]))[0]?.outcome).toBe('fail');
  });

  it('a rubric is graded by the judge’s verdict, and ungraded without a judge; the intent review likewise', () => {
    const rubric: Assertion = { kind: 'rubric', id: 'urgent_visible', criterion: 'Urgent tickets are easy to find.' };
    expect(gradeAssertions([rubric], EVIDENCE)[0]).toEqual({
      kind: 'rubric',
      role: 'urgent_visible',
      pass: false,
      outcome: 'ungraded',
      evidence: { criterion: 'Urgent tickets are easy to find.', reason: 'the run had no judge model (--judge-model)' },
    });
    const verdict = { pass: false, reasoning: 'There is no urgent view.', judge: 'judge-1', tokensIn: 900, tokensOut: 40, costUsd: 0.001 };
    expect(gradeAssertions([rubric], { ...EVIDENCE, rubric: { urgent_visible: verdict } })[0]).toMatchObject({
      outcome: 'fail',
      evidence: { criterion: 'Urgent tickets are easy to find.', reasoning: 'There is no urgent view.', judge: 'judge-1' },
    });
    expect(gradeAssertions([rubric], { ...EVIDENCE, rubric: { urgent_visible: { ...verdict, pass: true } } })[0]?.outcome).toBe('pass');
    const review: Assertion = { kind: 'intent_review' };
    expect(gradeAssertions([review], EVIDENCE)[0]?.outcome).toBe('ungraded');
    expect(gradeAssertions([review], { ...EVIDENCE, review: { verdict: 'pass', findings: [] } })[0]?.outcome).toBe('pass');
    const mismatch = { verdict: 'mismatch' as const, findings: [{ artifact: 'object hd_ticket', message: 'no satisfaction field' }] };
    expect(gradeAssertions([review], { ...EVIDENCE, review: mismatch })[0]).toMatchObject({ outcome: 'fail', evidence: mismatch });
    expect(gradeAssertions([review], { ...EVIDENCE, review: { verdict: 'failed', findings: [] } })[0]?.outcome).toBe('skipped');
  });
});
