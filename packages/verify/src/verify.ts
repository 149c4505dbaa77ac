import type { BuildIssue } from '@bvl/build-issue';
import { sortIssues } from '@bvl/build-issue';
import { lintGraph, lintGraphStreamed, type SeedSources } from '@bvl/graph-lint';
import { type ArtifactSet, buildGraph, type Graph, rebaseViewPaths } from '@bvl/metadata';
import { checkRender, rendererProfile } from '@bvl/render-contract';

/** The static layers verification runs: L1 graph lint and L2 render contract. */
export const STATIC_LAYERS = ['graph', 'render'] as const;
export type StaticLayer = (typeof STATIC_LAYERS)[number];

/** What was checked, per artifact kind (platform objects excluded). */
export interface Checked {
  objects: number;
  views: number;
  dashboards: number;
  widgets: number;
  datasets: number;
  apps: number;
  seeds: number;
  /** L2: component schemas translated and checked against the registry. */
  schemas?: number;
  /** L2: datasets compiled to SQL. */
  compiledDatasets?: number;
}

/** Result of {@link verify}: the overlaid graph, the sorted issue stream and the checked counts. */
export interface Verification {
  readonly graph: Graph;
  readonly issues: BuildIssue[];
  readonly checked: Checked;
  /** No L1/L2 error: what the publish gate asks. Warnings never block. */
  readonly publishable: boolean;
}

/** Options of {@link verify}. */
export interface VerifyOptions {
  /** Which static layers to run (default both). The gate always runs both. */
  readonly layers?: ReadonlySet<StaticLayer>;
  /**
   * The renderer profile L2 judges views and widgets against (`objectui-2026-09`, …; default the
   * newest). An unknown name throws a RegistryError naming the known ones: validate input first.
   */
  readonly renderer?: string;
  /**
   * The spec release the target holds artifacts to (`objectstack-17.4`; default the newest): what
   * it refuses is an L1 error whatever the renderer draws. With `renderer` it makes the target. An
   * unknown name throws a SpecProfileError naming the known ones: validate input first.
   */
  readonly spec?: string;
}

/** Counts the artifacts of the overlaid graph (platform objects excluded). */
export function countChecked(graph: Graph): Checked {
  let widgets = 0;
  let objects = 0;
  for (const d of graph.dashboards.values()) widgets += d.widgets.length;
  for (const o of graph.objects.values()) if (!o.platform) objects++;
  return {
    objects,
    views: graph.views.size,
    dashboards: graph.dashboards.size,
    widgets,
    datasets: graph.datasets.size,
    apps: graph.apps.size,
    seeds: graph.seeds.size,
  };
}

/**
 * L1 + L2 over published ⊕ drafts — the one verification every surface runs (`bvl verify`, the
 * publish gate, verify_build, the API, MCP, the eval runner). Builds the overlay graph once, runs
 * the layers, and returns the sorted issue stream with view paths rebased onto the documents the
 * views are stored in. Pure: no I/O, never throws on bad metadata.
 */
export function verify(published: ArtifactSet, drafts?: ArtifactSet, options: VerifyOptions = {}): Verification {
  const { graph, issues } = buildGraph(published, drafts, options.spec === undefined ? {} : { spec: options.spec });
  const layers = options.layers ?? new Set(STATIC_LAYERS);
  return finish(graph, issues, layers.has('graph') ? lintGraph(graph) : [], options);
}

/**
 * {@link verify} over sets whose large seeds are stored, not held (a seed body whose record list is
 * a StoredRecords: its node has `stored` set and no records): L1 reads each such seed's records
 * from `records(seed)`, part by part (graph-lint's lintGraphStreamed), so no seed's records are held
 * whole. The same issues, in the same order, as verify over the same sets with the records held.
 * A source that fails (a stored seed gone or changed while read: StoredSeedChanged) rejects.
 */
export async function verifyStreamed(
  published: ArtifactSet,
  drafts: ArtifactSet | undefined,
  records: Extract<SeedSources, (...args: never[]) => unknown>,
  options: VerifyOptions = {},
): Promise<Verification> {
  const { graph, issues } = buildGraph(published, drafts, options.spec === undefined ? {} : { spec: options.spec });
  const layers = options.layers ?? new Set(STATIC_LAYERS);
  return finish(graph, issues, layers.has('graph') ? await lintGraphStreamed(graph, records) : [], options);
}

/** The rest of a verification once the graph is built and linted: L2, the count, the sort. */
function finish(graph: Graph, issues: readonly BuildIssue[], lint: readonly BuildIssue[], options: VerifyOptions): Verification {
  const layers = options.layers ?? new Set(STATIC_LAYERS);
  const all = [...issues, ...lint];
  const checked = countChecked(graph);
  if (layers.has('render')) {
    const render = checkRender(graph, options.renderer === undefined ? {} : { registry: rendererProfile(options.renderer) });
    all.push(...render.issues);
    checked.schemas = render.checked.schemas;
    checked.compiledDatasets = render.checked.compiledDatasets;
  }
  const sorted = sortIssues(rebaseViewPaths(graph, all));
  return { graph, issues: sorted, checked, publishable: !sorted.some((i) => i.severity === 'error') };
}
