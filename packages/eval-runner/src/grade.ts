import type { Assertion, AssertionKind } from './case-file.ts';
import type { Evidence } from './evidence.ts';
import { matchRole } from './match-role.ts';

/** The verdict on one assertion, with what was seen (counts, names) so a failure explains itself. */
export interface AssertionResult {
  readonly kind: AssertionKind;
  /** The role the assertion is about, if any. */
  readonly role?: string;
  readonly pass: boolean;
  readonly evidence: Readonly<Record<string, unknown>>;
}

type Of<K extends AssertionKind> = Extract<Assertion, { kind: K }>;
type Verdict = { pass: boolean; evidence: Record<string, unknown> };

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
const notGathered = (what: string): Verdict => ({ pass: false, evidence: { reason: `${what} was not gathered` } });

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

/**
 * Grades a case's assertions against the evidence of one attempt. Pure: no I/O, the same input
 * gives the same output. Roles are resolved first (an object or dashboard role is the published
 * artifacts its terms match), so view and row assertions can refer to them. Each result says what
 * was seen; "every X" assertions over nothing fail, since probing nothing is not finding nothing.
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
    const { pass, evidence: seen } = grade(a, ctx);
    const role = 'role' in a ? a.role : 'objectRole' in a ? a.objectRole : 'dashboardRole' in a ? a.dashboardRole : undefined;
    return { kind: a.kind, ...(role !== undefined ? { role } : {}), pass, evidence: seen };
  });
}
