import type { Assertion, AssertionKind } from './case-file.ts';
import type { Evidence } from './evidence.ts';
import { matchRole } from './match-role.ts';

/**
 * How an assertion came out: `pass`, `fail` on what was seen, `skipped` when it could not run
 * because something before it failed (an app that was never published has no views to look at),
 * or `ungraded` when the run was not asked to grade it (a rubric without a judge model).
 */
export const ASSERTION_OUTCOMES = ['pass', 'fail', 'skipped', 'ungraded'] as const;
export type AssertionOutcome = (typeof ASSERTION_OUTCOMES)[number];

/** The verdict on one assertion, with what was seen (counts, names) so a failure explains itself. */
export interface AssertionResult {
  readonly kind: AssertionKind;
  /** The role the assertion is about, if any (a rubric's id). */
  readonly role?: string;
  /** Whether it passed: `outcome === 'pass'`. */
  readonly pass: boolean;
  /** Absent on rows stored before outcomes were kept: read it with {@link outcomeOf}. */
  readonly outcome?: AssertionOutcome;
  readonly evidence: Readonly<Record<string, unknown>>;
}

/** An assertion result's outcome (a row stored before outcomes were kept has only `pass`). */
export const outcomeOf = (r: Pick<AssertionResult, 'pass' | 'outcome'>): AssertionOutcome => r.outcome ?? (r.pass ? 'pass' : 'fail');

type Of<K extends AssertionKind> = Extract<Assertion, { kind: K }>;
type Verdict = { pass: boolean; outcome?: 'skipped' | 'ungraded'; evidence: Record<string, unknown> };

/** Roles resolved once per grading: the objects and dashboards each declared role matched. */
interface Context {
  readonly ev: Evidence;
  readonly objectRoles: ReadonlyMap<string, string[]>;
  readonly dashboardRoles: ReadonlyMap<string, string[]>;
}

const WIDGET_PROBE_CODES = new Set(['empty_query', 'widget_query_failed']);

function objectsOf(ctx: Context, role: string): string[] | undefined {
  return ctx.objectRoles.get(role);
}

const undeclared = (role: string, kind: string): Verdict => ({ pass: false, evidence: { reason: `role "${role}" is not declared by an ${kind} assertion` } });
const notGathered = (what: string): Verdict => ({ pass: false, outcome: 'skipped', evidence: { reason: `${what} was not gathered` } });

/** What these assertions look at exists only once the app is published: unpublished, they cannot run. */
const NEEDS_PUBLISHED: ReadonlySet<AssertionKind> = new Set<AssertionKind>([
  'object_exists',
  'view_exists',
  'dashboard_exists',
  'seeded_rows',
  'widgets_return_rows',
  'widgets_show_numbers',
  'no_error_boxes',
  'no_empty_widgets',
  'dashboards_reachable',
  'probes_clean',
  'rubric',
  'intent_review',
]);

const GRADERS: { [K in AssertionKind]: (a: Of<K>, ctx: Context) => Verdict } = {
  object_exists: (a, ctx) => {
    const matched = ctx.objectRoles.get(a.role) ?? [];
    return { pass: matched.length > 0, evidence: { matched, objects: ctx.ev.app.objects.length } };
  },
  view_exists: (a, ctx) => {
    const objects = a.objectRole === undefined ? undefined : objectsOf(ctx, a.objectRole);
    if (a.objectRole !== undefined && objects === undefined) return undeclared(a.objectRole, 'object_exists');
    const matched = ctx.ev.app.views
      .filter(
        (v) =>
          (objects === undefined || (v.object !== undefined && objects.includes(v.object))) &&
          (a.viewKind === undefined || v.kind === a.viewKind) &&
          (a.viewType === undefined || (v.type ?? (v.kind === 'list' ? 'grid' : 'simple')) === a.viewType) &&
          (a.match === undefined || matchRole([v.name, v.key, v.label], a.match, a.exclude)),
      )
      .map((v) => v.name);
    return { pass: matched.length > 0, evidence: { matched, ...(objects ? { objects } : {}), views: ctx.ev.app.views.length } };
  },
  dashboard_exists: (a, ctx) => {
    const names = ctx.dashboardRoles.get(a.role) ?? [];
    const matched = ctx.ev.app.dashboards.filter((d) => names.includes(d.name)).map((d) => ({ name: d.name, widgets: d.widgets.length }));
    const min = a.minWidgets ?? 1;
    return { pass: matched.some((d) => d.widgets >= min), evidence: { matched, minWidgets: min } };
  },
  seeded_rows: (a, ctx) => {
    const objects = objectsOf(ctx, a.objectRole);
    if (objects === undefined) return undeclared(a.objectRole, 'object_exists');
    const rows = Object.fromEntries(objects.map((o) => [o, ctx.ev.rowCounts[o] ?? 0]));
    return { pass: Object.values(rows).some((n) => n >= a.min), evidence: { min: a.min, rows } };
  },
  widgets_return_rows: (a, ctx) => {
    if (!ctx.ev.dom) return notGathered('the DOM sweep');
    let dashboards = ctx.ev.app.dashboards.map((d) => d.name);
    if (a.dashboardRole !== undefined) {
      const role = ctx.dashboardRoles.get(a.dashboardRole);
      if (role === undefined) return undeclared(a.dashboardRole, 'dashboard_exists');
      dashboards = role;
    }
    const widgets = ctx.ev.dom.artifacts
      .filter((x) => x.type === 'dashboard' && dashboards.includes(x.name))
      .flatMap((x) => (x.widgets ?? []).map((w) => ({ ...w, name: `${x.name}.${w.id}` })));
    const empty = widgets.filter((w) => !w.error && w.rows === 0).map((w) => w.name);
    const failed = widgets.filter((w) => w.error).map((w) => ({ widget: w.name, error: w.error }));
    const probeIssues = (ctx.ev.probes?.issues ?? [])
      .filter((i) => WIDGET_PROBE_CODES.has(i.code) && dashboards.includes(i.artifact.name))
      .map((i) => ({ code: i.code, widget: `${i.artifact.name}.${i.member ?? ''}` }));
    return {
      pass: widgets.length > 0 && empty.length === 0 && failed.length === 0 && probeIssues.length === 0,
      evidence: { dashboards, widgets: widgets.length, returnedRows: widgets.length - empty.length - failed.length, empty, failed, probeIssues },
    };
  },
  no_error_boxes: (_a, ctx) => {
    const dom = ctx.ev.dom;
    if (!dom) return notGathered('the DOM sweep');
    const where = dom.artifacts
      .filter((x) => x.errorBoxes > 0)
      .map((x) => ({ type: x.type, name: x.name, errorBoxes: x.errorBoxes, unknownTypes: x.unknownTypes }));
    return { pass: dom.artifacts.length > 0 && dom.errorBoxes === 0, evidence: { swept: dom.artifacts.length, errorBoxes: dom.errorBoxes, where } };
  },
  no_empty_widgets: (_a, ctx) => {
    const dom = ctx.ev.dom;
    if (!dom) return notGathered('the DOM sweep');
    const where = dom.artifacts.filter((x) => x.emptyWidgets > 0).map((x) => ({ type: x.type, name: x.name, emptyWidgets: x.emptyWidgets }));
    return { pass: dom.artifacts.length > 0 && dom.emptyWidgets === 0, evidence: { swept: dom.artifacts.length, emptyWidgets: dom.emptyWidgets, where } };
  },
  dashboards_reachable: (_a, ctx) => {
    const dashboards = ctx.ev.app.dashboards.map((d) => d.name);
    const unreachable = dashboards.filter((d) => !ctx.ev.app.navigation.dashboards.includes(d));
    return { pass: dashboards.length > 0 && unreachable.length === 0, evidence: { dashboards, unreachable, apps: ctx.ev.app.navigation.apps } };
  },
  published: (_a, ctx) => ({ pass: ctx.ev.published, evidence: { published: ctx.ev.published } }),
  probes_clean: (_a, ctx) => {
    const probes = ctx.ev.probes;
    if (!probes) return notGathered('the L3 probe report');
    const errors = probes.issues
      .filter((i) => i.severity === 'error')
      .map((i) => ({ code: i.code, artifact: `${i.artifact.type} ${i.artifact.name}${i.member ? `.${i.member}` : ''}` }));
    const probed = Object.values(probes.checked).reduce((n, c) => n + c, 0);
    return { pass: probed > 0 && errors.length === 0, evidence: { errors, checked: probes.checked } };
  },
  rounds_at_most: (a, ctx) => ({
    pass: ctx.ev.rounds !== undefined && ctx.ev.rounds <= a.max,
    evidence: { rounds: ctx.ev.rounds ?? null, max: a.max },
  }),
  widgets_show_numbers: (_a, ctx) => {
    const dom = ctx.ev.dom;
    if (!dom) return notGathered('the DOM sweep');
    const widgets = dom.artifacts.flatMap((x) => (x.widgets ?? []).map((w) => ({ ...w, name: `${x.name}.${w.id}` })));
    const checked = widgets.filter((w) => w.shows !== undefined);
    const wrong = checked
      .filter((w) => w.shows!.missingCount > 0)
      .map((w) => ({ widget: w.name, missing: w.shows!.missing, missingCount: w.shows!.missingCount }));
    const disagree = widgets
      .filter((w) => w.oracle && !w.oracle.agrees)
      .map((w) => ({ widget: w.name, oracle: w.oracle!.name, differences: w.oracle!.differences }));
    const values = checked.reduce((n, w) => n + w.shows!.checked, 0);
    return {
      pass: checked.length > 0 && wrong.length === 0 && disagree.length === 0,
      evidence: {
        widgets: widgets.length,
        checked: checked.length,
        values,
        wrong,
        ...(widgets.some((w) => w.oracle) ? { oracle: { asked: widgets.filter((w) => w.oracle).length, disagree } } : {}),
      },
    };
  },
  rubric: (a, ctx) => {
    const v = ctx.ev.rubric?.[a.id];
    if (!v) return { pass: false, outcome: 'ungraded', evidence: { criterion: a.criterion, reason: 'the run had no judge model (--judge-model)' } };
    return { pass: v.pass, evidence: { criterion: a.criterion, ...v } };
  },
  intent_review: (_a, ctx) => {
    const r = ctx.ev.review;
    if (!r) return { pass: false, outcome: 'ungraded', evidence: { reason: 'the agent ran no intent review' } };
    if (r.verdict === 'failed') return { pass: false, outcome: 'skipped', evidence: { verdict: r.verdict, findings: r.findings } };
    return { pass: r.verdict === 'pass', evidence: { verdict: r.verdict, findings: r.findings } };
  },
  issues_absent: (a, ctx) => {
    const left = ctx.ev.issues;
    if (!left) return notGathered('the list of issues left at the end');
    const remaining = a.issues
      .filter((e) =>
        left.some(
          (i) => i.code === e.code && i.artifact.type === e.artifact.type && i.artifact.name === e.artifact.name && (e.path === undefined || i.path === e.path),
        ),
      )
      .map((e) => `${e.code} ${e.artifact.type} ${e.artifact.name}${e.path !== undefined ? ` ${e.path}` : ''}`);
    return { pass: remaining.length === 0, evidence: { expectedGone: a.issues.length, remaining } };
  },
};

/** An assertion about the published app, when nothing was published: it could not run. */
const unpublished: Verdict = { pass: false, outcome: 'skipped', evidence: { reason: 'the app was not published' } };

/**
 * Grades a case's assertions against the evidence of one attempt. Pure: no I/O, the same input
 * gives the same output. Roles are resolved first (an object or dashboard role is the published
 * artifacts its terms match), so view and row assertions can refer to them. Each result says what
 * was seen; "every X" assertions over nothing fail, since probing nothing is not finding nothing.
 * An assertion about the published app is `skipped` when nothing was published (the `published`
 * assertion is the one that fails), so a summary counts what failed, not what could not run.
 */
export function gradeAssertions(assertions: readonly Assertion[], evidence: Evidence): AssertionResult[] {
  const objectRoles = new Map<string, string[]>();
  const dashboardRoles = new Map<string, string[]>();
  for (const a of assertions) {
    if (a.kind === 'object_exists')
      objectRoles.set(
        a.role,
        evidence.app.objects.filter((o) => matchRole([o.name, o.label, o.pluralLabel], a.match, a.exclude)).map((o) => o.name),
      );
    if (a.kind === 'dashboard_exists')
      dashboardRoles.set(
        a.role,
        evidence.app.dashboards.filter((d) => matchRole([d.name, d.label], a.match, a.exclude)).map((d) => d.name),
      );
  }
  const ctx: Context = { ev: evidence, objectRoles, dashboardRoles };
  return assertions.map((a) => {
    const grade = GRADERS[a.kind] as (a: Assertion, ctx: Context) => Verdict;
    const v: Verdict = !evidence.published && NEEDS_PUBLISHED.has(a.kind) ? unpublished : grade(a, ctx);
    const role = 'role' in a ? a.role : 'objectRole' in a ? a.objectRole : 'dashboardRole' in a ? a.dashboardRole : 'id' in a ? a.id : undefined;
    const outcome: AssertionOutcome = v.outcome ?? (v.pass ? 'pass' : 'fail');
    return { kind: a.kind, ...(role !== undefined ? { role } : {}), pass: outcome === 'pass', outcome, evidence: v.evidence };
  });
}
