import { buildGraph, collectStack, type Graph } from '@bvl/metadata';
import type { DatasetSelection } from '@bvl/render-contract';
import { planSeedProbes, planViewProbes, planWidgetProbes, type ViewRead } from '@bvl/runtime-probes';
import type { StackDoc } from './doc-key.ts';

/**
 * One question both engines answer about a published stack, planned once from bvl's graph with
 * L3's own planners so ObjectStack's engine and bvl's are asked exactly the same thing:
 * - a seed: how many rows its object holds after the seeds were loaded;
 * - a list or form view: its first-page read (columns, filter, sort, limit 1);
 * - a widget: its dataset query with the widget's real selection (values, dimensions, filter, options).
 */
export type Unit =
  | { readonly kind: 'seed'; readonly key: string; readonly object: string }
  | { readonly kind: 'view'; readonly key: string; readonly object: string; readonly read: ViewRead }
  | { readonly kind: 'widget'; readonly key: string; readonly dataset: string; readonly object: string | undefined; readonly selection: DatasetSelection };

/** bvl's graph of a stack document and the units L3 would probe on it (env `dev`). */
export function planUnits(doc: StackDoc): { graph: Graph; units: Unit[] } {
  const { graph } = buildGraph(collectStack(doc));
  const units: Unit[] = [];
  const objects = new Set<string>();
  for (const p of planSeedProbes(graph, { env: 'dev' }).probes) {
    // Seeds of one object are judged together: the rows the object holds.
    if (objects.has(p.seed.object)) continue;
    objects.add(p.seed.object);
    units.push({ kind: 'seed', key: `seed ${p.seed.object}`, object: p.seed.object });
  }
  for (const p of planViewProbes(graph).probes) units.push({ kind: 'view', key: `view ${p.view.name}`, object: p.object, read: p.read });
  for (const p of planWidgetProbes(graph).probes)
    units.push({
      kind: 'widget',
      key: `widget ${p.dashboard.name}#${p.widget.id}`,
      dataset: p.dataset.name,
      object: p.dataset.object,
      selection: p.selection,
    });
  return { graph, units };
}

/** How a unit came out: rows landed / read / returned, none, or an error. */
export type Outcome = 'rows' | 'empty' | 'error';

/** One engine's answer to one unit. */
export interface Answer {
  readonly key: string;
  readonly outcome: Outcome;
  /** A seed: the object's row count. */
  readonly count?: number;
  /** A widget: its rows, normalised (see normalise.ts), sorted. */
  readonly rows?: readonly string[];
  /** An error's message (first line), or why bvl refused the unit. */
  readonly error?: string;
  /** bvl only: the L1/L2 error codes on the unit when bvl refuses the stack (`bvl unknown_measure`). */
  readonly codes?: readonly string[];
}
