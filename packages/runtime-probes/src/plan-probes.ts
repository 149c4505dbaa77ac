import type { Graph } from '@bvl/metadata';
import { type Plane, type SkippedProbe, zeroPlanes } from './probe-report.ts';
import { planSeedProbes, type SeedApplyReport, type SeedProbe } from './seed-probe.ts';
import { planViewProbes, type ViewProbe } from './view-probe.ts';
import { planWidgetProbes, type WidgetProbe } from './widget-probe.ts';

/** Every probe L3 would run on a graph, before any query. */
export interface ProbePlan {
  readonly seeds: SeedProbe[];
  readonly views: ViewProbe[];
  readonly widgets: WidgetProbe[];
  /** Objects whose rows are counted: every declared object, plus platform objects seeds or widgets need. */
  readonly objects: string[];
  readonly skipped: SkippedProbe[];
  readonly total: Record<Plane, number>;
}

/** Options of {@link planProbes}. */
export interface PlanOptions {
  /** The environment seeds were applied for (seeds whose env lacks it are skipped). */
  readonly env: string;
  readonly seedApplied?: SeedApplyReport | undefined;
  /**
   * Only these artifacts are probed (a publish probes the package it published, not the tenant's
   * other packages); objects are counted when the scope declares them or its seeds and widgets read
   * them. Absent: the whole graph.
   */
  readonly scope?: ReadonlyArray<{ readonly type: string; readonly name: string }> | undefined;
}

/** Plans the probes of every plane (of the scope, when given). Pure: the graph and the publish's seed report in, the plan out. */
export function planProbes(graph: Graph, options: PlanOptions): ProbePlan {
  const keys = options.scope ? new Set(options.scope.map((a) => `${a.type}\u0000${a.name}`)) : undefined;
  const inScope = (type: string, name: string): boolean => keys === undefined || keys.has(`${type}\u0000${name}`);
  const scoped = (s: SkippedProbe): boolean => inScope(s.artifact.type, s.artifact.name);
  const allSeeds = planSeedProbes(graph, options);
  const allViews = planViewProbes(graph);
  const allWidgets = planWidgetProbes(graph);
  const seeds = { probes: allSeeds.probes.filter((p) => inScope('seed', p.seed.name)), skipped: allSeeds.skipped.filter(scoped) };
  const views = { probes: allViews.probes.filter((p) => inScope('view', p.view.name)), skipped: allViews.skipped.filter(scoped) };
  const widgets = { probes: allWidgets.probes.filter((p) => inScope('dashboard', p.dashboard.name)), skipped: allWidgets.skipped.filter(scoped) };
  const objects = new Set<string>();
  for (const o of graph.objects.values()) if (!o.platform && !o.invalid && inScope('object', o.name)) objects.add(o.name);
  for (const s of seeds.probes) objects.add(s.seed.object);
  for (const w of widgets.probes) if (w.dataset.object && graph.objects.has(w.dataset.object)) objects.add(w.dataset.object);
  const total = zeroPlanes();
  total.seeds = [...graph.seeds.values()].filter((s) => inScope('seed', s.name)).length;
  total.views = [...graph.views.values()].filter((v) => inScope('view', v.name)).length;
  total.widgets =
    keys === undefined
      ? allWidgets.total
      : [...graph.dashboards.values()].filter((d) => inScope('dashboard', d.name)).reduce((n, d) => n + d.widgets.length, 0);
  total.objects = objects.size;
  return {
    seeds: seeds.probes,
    views: views.probes,
    widgets: widgets.probes,
    objects: [...objects].sort(),
    skipped: [...seeds.skipped, ...views.skipped, ...widgets.skipped],
    total,
  };
}
