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
}

/** Plans the probes of every plane. Pure: the graph and the publish's seed report in, the plan out. */
export function planProbes(graph: Graph, options: PlanOptions): ProbePlan {
  const seeds = planSeedProbes(graph, options);
  const views = planViewProbes(graph);
  const widgets = planWidgetProbes(graph);
  const objects = new Set<string>();
  for (const o of graph.objects.values()) if (!o.platform && !o.invalid) objects.add(o.name);
  for (const s of seeds.probes) objects.add(s.seed.object);
  for (const w of widgets.probes) if (w.dataset.object && graph.objects.has(w.dataset.object)) objects.add(w.dataset.object);
  const total = zeroPlanes();
  total.seeds = graph.seeds.size;
  total.views = graph.views.size;
  total.widgets = widgets.total;
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
