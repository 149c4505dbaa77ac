import type { BuildIssue } from '@bvl/build-issue';
import { sortIssues } from '@bvl/build-issue';
import { lintGraph } from '@bvl/graph-lint';
import { type ArtifactSet, buildGraph, type Graph, rebaseViewPaths } from '@bvl/metadata';
import { checkRender } from '@bvl/render-contract';

/** The static layers `bvl verify` can run. */
export const STATIC_LAYERS = ['graph', 'render'] as const;
export type StaticLayer = (typeof STATIC_LAYERS)[number];

/** What was checked, per artifact kind. */
export interface Checked {
  objects: number;
  views: number;
  dashboards: number;
  widgets: number;
  datasets: number;
  apps: number;
  seeds: number;
  schemas?: number;
  compiledDatasets?: number;
}

/** Result of {@link verifyStatic}: the overlaid graph, sorted issues and the checked counts. */
export interface StaticResult {
  readonly graph: Graph;
  readonly issues: BuildIssue[];
  readonly checked: Checked;
}

/** Counts the artifacts of the overlaid graph (platform objects excluded). */
export function countChecked(graph: Graph): Checked {
  let widgets = 0;
  for (const d of graph.dashboards.values()) widgets += d.widgets.length;
  return {
    objects: [...graph.objects.values()].filter((o) => !o.platform).length,
    views: graph.views.size,
    dashboards: graph.dashboards.size,
    widgets,
    datasets: graph.datasets.size,
    apps: graph.apps.size,
    seeds: graph.seeds.size,
  };
}

/**
 * L1 (+ L2) over published ⊕ drafts: builds the graph once, runs the requested layers and returns
 * the sorted issue stream. Pure: the caller reads files and prints.
 */
export function verifyStatic(published: ArtifactSet, drafts: ArtifactSet | undefined, layers: ReadonlySet<StaticLayer> = new Set(STATIC_LAYERS)): StaticResult {
  const { graph, issues } = buildGraph(published, drafts);
  const all = [...issues];
  const checked = countChecked(graph);
  if (layers.has('graph')) all.push(...lintGraph(graph));
  if (layers.has('render')) {
    const render = checkRender(graph);
    all.push(...render.issues);
    checked.schemas = render.checked.schemas;
    checked.compiledDatasets = render.checked.compiledDatasets;
  }
  return { graph, issues: sortIssues(rebaseViewPaths(graph, all)), checked };
}
