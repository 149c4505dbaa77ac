import type { DatasetNode, Graph, ViewNode } from '@bvl/metadata';
import { type ComponentRegistry, type DatasetSelection, DEFAULT_REGISTRY, renderToHtml, translateView, translateWidget } from '@bvl/render-contract';
// A subpath of its own: happy-dom costs ~0.4 s to load, and only the sweep needs it (bvl verify must not load it).
import { type DomSweep, sweepDom } from '@bvl/render-contract/sweep-dom';
import { type ViewRead, viewRead, widgetSelection } from '@bvl/runtime-probes';
import { rowsAgree, type WidgetNumbers, widgetNumbers } from './widget-numbers.ts';

/** Rows of a read, or why it failed (the platform's data engine answers in this shape). */
export type RowsRead = { readonly ok: true; readonly rows: ReadonlyArray<Readonly<Record<string, unknown>>> } | { readonly ok: false; readonly error: string };

/** Where the sweep reads real data: a view's list read and a widget's dataset query (the caller's port). */
export interface RowSource {
  readView(object: string, read: ViewRead): Promise<RowsRead>;
  queryDataset(dataset: DatasetNode, selection: DatasetSelection): Promise<RowsRead>;
}

/**
 * A second engine that answers a widget's query (the ObjectStack engine, where it is installed):
 * the sweep checks that bvl's rows agree with its answer. Undefined when it cannot answer that widget.
 */
export interface WidgetOracle {
  readonly name: string;
  rowsOf(dashboard: string, widget: string): Promise<RowsRead | undefined>;
}

/** Rows a view's first page shows in the sweep. */
export const SWEEP_VIEW_ROWS = 50;

/** What the sweep saw of one widget: the rows its real query returned (or why it failed) and how it drew. */
export interface SweptWidget {
  readonly id: string;
  readonly rows: number;
  readonly error?: string;
  readonly errorBoxes: number;
  readonly emptyWidgets: number;
  readonly noData: number;
  /** Whether the rendered widget shows the numbers its real query returned; absent when the query failed. */
  readonly shows?: WidgetNumbers;
  /** The oracle's verdict on the query's rows, when an oracle answered for this widget. */
  readonly oracle?: { readonly name: string; readonly agrees: boolean; readonly differences: string[] };
}

/** What the sweep saw of one published view or dashboard. */
export interface SweptArtifact {
  readonly type: 'view' | 'dashboard';
  readonly name: string;
  /** Red "Unknown component type" boxes, and the types they name. */
  readonly errorBoxes: number;
  readonly unknownTypes: string[];
  /** Widgets drawn empty for a missing binding or an unfit query shape. */
  readonly emptyWidgets: number;
  /** Empty data states ("No data to show."). */
  readonly noData: number;
  readonly components: number;
  /** Views: rows the first page read (absent for forms and views that read no object). */
  readonly rows?: number;
  /** Views: why the first-page read failed. */
  readonly readError?: string;
  /** Dashboards: each widget. */
  readonly widgets?: SweptWidget[];
}

/** The DOM sweep of a published app: every view and dashboard, with totals. */
export interface DomSweepEvidence {
  readonly artifacts: SweptArtifact[];
  readonly errorBoxes: number;
  readonly emptyWidgets: number;
}

const counts = (s: DomSweep) => ({ errorBoxes: s.errorBoxes, emptyWidgets: s.emptyWidgets, noData: s.noData, components: s.components });

async function sweepView(view: ViewNode, graph: Graph, source: RowSource, registry: ComponentRegistry): Promise<SweptArtifact> {
  const schema = translateView(view, graph, registry);
  let rows: RowsRead | undefined;
  // A form draws inputs, not records; a list view draws its first page of real rows.
  const read = view.kind === 'list' && view.object && graph.objects.has(view.object) ? viewRead(view) : undefined;
  if (read && view.object) rows = await source.readView(view.object, { ...read, limit: SWEEP_VIEW_ROWS });
  const swept = sweepDom(renderToHtml(schema, rows?.ok ? { rows: rows.rows } : undefined, { registry }));
  return {
    type: 'view',
    name: view.name,
    ...counts(swept),
    unknownTypes: swept.unknownTypes,
    ...(rows?.ok ? { rows: rows.rows.length } : {}),
    ...(rows && !rows.ok ? { readError: rows.error } : {}),
  };
}

/**
 * Renders every published view and dashboard of `graph` with its real data through the reference
 * renderer (`translateView`/`translateWidget` → `renderToHtml`) and sweeps the HTML with happy-dom
 * (`sweepDom`): a view with its first page of rows, each widget with the rows of its real dataset
 * query (the selection L3 probes run). Counts red error boxes, empty widgets and empty data states
 * per artifact, as the renderer profile `registry` draws them (default: the newest objectui). Each
 * widget is also checked against its rows: the page must show the numbers the real query returned
 * (see widgetNumbers) — evidence that does not go through L2 — and, given an `oracle` (another
 * engine), those rows must agree with its answer. Reads go through `source`; the sweep itself
 * writes nothing. Sorted by type and name.
 */
export async function sweepPublished(
  graph: Graph,
  source: RowSource,
  registry: ComponentRegistry = DEFAULT_REGISTRY,
  oracle?: WidgetOracle | undefined,
): Promise<DomSweepEvidence> {
  const artifacts: SweptArtifact[] = [];
  const views = [...graph.views.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const view of views) artifacts.push(await sweepView(view, graph, source, registry));
  const dashboards = [...graph.dashboards.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const dashboard of dashboards) {
    const widgets: SweptWidget[] = [];
    const unknownTypes: string[] = [];
    let components = 0;
    for (const widget of dashboard.widgets) {
      const dataset = widget.def.dataset === undefined ? undefined : graph.datasets.get(widget.def.dataset);
      const selection = dataset && !dataset.invalid ? widgetSelection(widget, dataset) : undefined;
      const rows: RowsRead =
        dataset && selection
          ? await source.queryDataset(dataset, selection)
          : {
              ok: false,
              error: dataset ? `dataset "${dataset.name}" gives the widget nothing to select` : `dataset "${widget.def.dataset ?? '(none)'}" does not exist`,
            };
      const html = renderToHtml(translateWidget(widget, dataset, dashboard, registry), rows.ok ? { rows: rows.rows } : undefined, { registry });
      const swept = sweepDom(html);
      unknownTypes.push(...swept.unknownTypes);
      components += swept.components;
      const measures = selection?.measures ?? [];
      const other = oracle && rows.ok ? await oracle.rowsOf(dashboard.name, widget.id) : undefined;
      const differences = !other || !rows.ok ? [] : other.ok ? rowsAgree(rows.rows, other.rows, measures) : [`the oracle failed: ${other.error}`];
      widgets.push({
        id: widget.id,
        rows: rows.ok ? rows.rows.length : 0,
        ...(rows.ok ? {} : { error: rows.error }),
        errorBoxes: swept.errorBoxes,
        emptyWidgets: swept.emptyWidgets,
        noData: swept.noData,
        ...(rows.ok ? { shows: widgetNumbers(html, rows.rows, measures) } : {}),
        ...(other && oracle ? { oracle: { name: oracle.name, agrees: differences.length === 0, differences } } : {}),
      });
    }
    const sum = (k: 'errorBoxes' | 'emptyWidgets' | 'noData') => widgets.reduce((n, w) => n + w[k], 0);
    artifacts.push({
      type: 'dashboard',
      name: dashboard.name,
      errorBoxes: sum('errorBoxes'),
      unknownTypes,
      emptyWidgets: sum('emptyWidgets'),
      noData: sum('noData'),
      components,
      widgets,
    });
  }
  return {
    artifacts,
    errorBoxes: artifacts.reduce((n, a) => n + a.errorBoxes, 0),
    emptyWidgets: artifacts.reduce((n, a) => n + a.emptyWidgets, 0),
  };
}
