import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { type DashboardNode, type DatasetNode, type Graph, mayBeHidden, pointer, type WidgetNode } from '@bvl/metadata';
import type { DatasetSelection } from '@bvl/render-contract';
import { CONTEXT_TOKENS, widgetQueryOptions } from '@bvl/render-contract';
import type { DatasetRun, ProbeOutcome } from './probe-engine.ts';
import type { SkippedProbe } from './probe-report.ts';

/** Rows a widget probe fetches at most (the widget's own `options.limit` when smaller). */
export const WIDGET_ROW_LIMIT = 1_000;

/** A planned widget probe: the widget's real selection on its dataset. */
export interface WidgetProbe {
  readonly dashboard: DashboardNode;
  readonly widget: WidgetNode;
  readonly dataset: DatasetNode;
  readonly selection: DatasetSelection;
}

/**
 * The selection a widget's renderer asks of its dataset: its values (measures), dimensions, filter
 * and the query-affecting options (date bucket, order); a widget without values gets the dataset's
 * first measure, as ObjectStack's probe does.
 * Undefined when the dataset declares no measure to fall back on.
 */
export function widgetSelection(widget: WidgetNode, dataset: DatasetNode): DatasetSelection | undefined {
  const values = widget.def.values?.length ? [...widget.def.values] : [...dataset.measures.keys()].slice(0, 1);
  if (values.length === 0 && !widget.def.dimensions?.length) return undefined;
  const own = widget.def.options?.limit;
  const limit = typeof own === 'number' && Number.isSafeInteger(own) && own > 0 ? Math.min(own, WIDGET_ROW_LIMIT) : WIDGET_ROW_LIMIT;
  return {
    measures: values,
    dimensions: [...(widget.def.dimensions ?? [])],
    ...(widget.def.filter ? { filter: { ...widget.def.filter } } : {}),
    ...widgetQueryOptions(widget.def),
    limit,
  };
}

/** The widgets to probe, and the ones skipped with their reason. Pure. */
export function planWidgetProbes(graph: Graph): { probes: WidgetProbe[]; skipped: SkippedProbe[]; total: number } {
  const probes: WidgetProbe[] = [];
  const skipped: SkippedProbe[] = [];
  let total = 0;
  for (const dashboard of [...graph.dashboards.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    for (const widget of dashboard.widgets) {
      total++;
      const skip = (reason: string) => skipped.push({ plane: 'widgets', artifact: { type: 'dashboard', name: dashboard.name }, member: widget.id, reason });
      const name = widget.def.dataset;
      const dataset = name === undefined ? undefined : graph.datasets.get(name);
      if (mayBeHidden(graph.objects, widget.def.requiresObject))
        skip(`the widget shows only when object "${String(widget.def.requiresObject)}" is registered (requiresObject)`);
      else if (name === undefined) skip('the widget names no dataset (reported by L1 as dangling_dataset)');
      else if (!dataset) skip(`dataset "${name}" does not exist (reported by L1 as dangling_dataset)`);
      else if (dataset.invalid) skip(`dataset "${name}" fails its schema (reported by L1 as invalid_artifact)`);
      else {
        const selection = widgetSelection(widget, dataset);
        if (selection) probes.push({ dashboard, widget, dataset, selection });
        else skip(`dataset "${name}" declares no measure and the widget selects nothing`);
      }
    }
  }
  return { probes, skipped, total };
}

/** Whether a filter compares against a per-session context token such as `{current_user_id}`. */
function usesContextToken(filter: unknown): boolean {
  if (filter === undefined) return false;
  const text = JSON.stringify(filter) ?? '';
  return Object.keys(CONTEXT_TOKENS).some((t) => text.includes(`{${t}}`));
}

const showSql = (run: { sql?: string; params?: readonly unknown[] }): string =>
  run.sql ? ` SQL: ${run.sql}${run.params?.length ? ` with parameters ${JSON.stringify(run.params)}` : ''}` : '';

/**
 * Judges a widget's query: a failure is `widget_query_failed`; no rows while the base object has
 * rows is `empty_query` (with the SQL, so the cause can be read off it). Pure.
 */
export function judgeWidget(probe: WidgetProbe, outcome: ProbeOutcome<DatasetRun>, baseRows: number | undefined): BuildIssue | undefined {
  const { dashboard, widget, dataset, selection } = probe;
  const artifact = { type: 'dashboard', name: dashboard.name };
  const ref = { type: 'dashboard', name: dashboard.name, member: widget.id };
  const who = `Widget "${widget.id}" of dashboard "${dashboard.name}"`;
  const asks = `measures ${selection.measures?.join(', ') || 'none'}${selection.dimensions?.length ? ` by ${selection.dimensions.join(', ')}` : ''}${selection.filter ? ` filtered by ${JSON.stringify(selection.filter)}` : ''}`;
  const path = pointer('widgets', widget.index);
  if (!outcome.ok) {
    return makeIssue({
      code: 'widget_query_failed',
      artifact,
      ref,
      path,
      message: `${who} asks dataset "${dataset.name}" for ${asks}, and the query fails: ${outcome.error}.${showSql(outcome)}`,
      fix: `Make dataset "${dataset.name}" and the widget's selection agree with the published fields of object "${dataset.object ?? '?'}", then publish again.`,
      draft: dashboard.draft,
    });
  }
  if (outcome.value.rows > 0 || baseRows === undefined || baseRows === 0) return undefined;
  // A filter on the signed-in user or organization is legitimately empty for the probe, which
  // runs as nobody: no verdict on emptiness (the query still ran, so a failure would show).
  if (usesContextToken(selection.filter) || usesContextToken(dataset.def.filter)) return undefined;
  return makeIssue({
    code: 'empty_query',
    artifact,
    ref,
    path,
    message: `${who} asks dataset "${dataset.name}" for ${asks} and gets no rows, while object "${dataset.object}" has ${baseRows} row${baseRows === 1 ? '' : 's'}: the widget renders empty.${showSql(outcome.value)}`,
    fix: selection.filter
      ? `Check the widget's filter ${JSON.stringify(selection.filter)} (and dataset "${dataset.name}"'s own filter) against the seeded rows of "${dataset.object}": seed rows it matches, or loosen the filter.`
      : `Check dataset "${dataset.name}"'s filter and dimensions against the rows of "${dataset.object}".`,
    draft: dashboard.draft,
  });
}
