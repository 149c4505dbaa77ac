import { buildGraph, collectStack, type DashboardNode, type Graph } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { checkView } from './check-view.ts';
import { checkWidget } from './check-widget.ts';
import type { ComponentRegistry } from './component-registry.ts';
import { expectedOutcome } from './expected-outcome.ts';
import { RENDERER_PROFILES } from './renderer-profiles.ts';

/*
 * Per renderer profile: each view and widget shape, the outcome a user sees (renders, degrades,
 * refuses, red box) and the renderer source file that decides it. The outcome is what L2 predicts
 * (its codes, through expectedOutcome); the render-agreement test holds the reference renderer to
 * the same outcome. Each cited file must be one the profile's registry names as a source.
 */

type Seen = 'renders' | 'degrades' | 'refuses' | 'red box';
const SEEN = { rendered: 'renders', degraded: 'degrades', 'empty-widget': 'refuses', 'red-box': 'red box' } as const;

const objects = [
  {
    name: 'exp_task',
    fields: {
      title: { type: 'text' },
      status: { type: 'select', options: ['open', 'done'] },
      due: { type: 'date' },
      starts: { type: 'datetime' },
      lat: { type: 'number' },
      lng: { type: 'number' },
      parent: { type: 'lookup', reference: 'exp_task' },
    },
  },
  { name: 'exp_plain', fields: { title: { type: 'text' }, due: { type: 'date' } } },
];

/** View shapes: a list view body (or a form body with `form: true`) on an object. */
const VIEWS: Record<string, { object?: string; form?: boolean; body: Record<string, unknown> }> = {
  list: { body: { type: 'list' } },
  table: { body: { type: 'table' } },
  kanban_bound: { body: { type: 'kanban', kanban: { groupByField: 'status' } } },
  kanban_unbound_status: { body: { type: 'kanban' } },
  kanban_unbound_plain: { object: 'exp_plain', body: { type: 'kanban' } },
  calendar_bound: { body: { type: 'calendar', calendar: { startDateField: 'due', titleField: 'title' } } },
  calendar_unbound: { body: { type: 'calendar', calendar: { titleField: 'title' } } },
  timeline_via_calendar: { body: { type: 'timeline', calendar: { startDateField: 'starts', titleField: 'title' } } },
  gantt_start_only: { body: { type: 'gantt', gantt: { startDateField: 'starts' } } },
  map_unbound: { body: { type: 'map' } },
  map_lat_lng: { body: { type: 'map', map: { latitudeField: 'lat', longitudeField: 'lng' } } },
  tree: { body: { type: 'tree', tree: { parentField: 'parent', labelField: 'title' } } },
  form_simple: { form: true, body: { type: 'simple', sections: [{ fields: ['title'] }] } },
  form_page: { form: true, body: { type: 'page', sections: [{ fields: ['title'] }] } },
};

const WIDGETS: Record<string, Record<string, unknown>> = {
  metric_one: { type: 'metric', values: ['n'] },
  metric_two_measures: { type: 'metric', values: ['n', 'total'] },
  metric_by_dimension: { type: 'metric', dimensions: ['status'], values: ['n'] },
  gauge_by_dimension: { type: 'gauge', dimensions: ['status'], values: ['n'] },
  bar_one_dimension: { type: 'bar', dimensions: ['status'], values: ['n'] },
  bar_no_dimension: { type: 'bar', values: ['n'] },
  pie_two_measures: { type: 'pie', dimensions: ['status'], values: ['n', 'total'] },
  pie_two_dimensions: { type: 'pie', dimensions: ['status', 'month'], values: ['n'] },
  combo_two_dimensions: { type: 'combo', dimensions: ['status', 'month'], values: ['n'] },
  pivot_four_dimensions: { type: 'pivot', dimensions: ['status', 'month', 'title', 'due'], values: ['n'] },
  scatter_two_measures: { type: 'scatter', dimensions: ['status'], values: ['n', 'total'] },
  scatter_two_dimensions: { type: 'scatter', dimensions: ['status', 'month'], values: ['total'] },
  table_no_values: { type: 'table', dimensions: ['status'], values: [] },
  table_counts_no_dimension: { type: 'table', values: ['n'] },
  heatmap: { type: 'heatmap', dimensions: ['status'], values: ['n'] },
};

function graph(): Graph {
  const container = {
    object: 'exp_task',
    listViews: Object.fromEntries(
      Object.entries(VIEWS)
        .filter(([, v]) => !v.form && !v.object)
        .map(([k, v]) => [k, { data: { provider: 'object', object: 'exp_task' }, columns: ['title'], ...v.body }]),
    ),
    formViews: Object.fromEntries(
      Object.entries(VIEWS)
        .filter(([, v]) => v.form)
        .map(([k, v]) => [k, v.body]),
    ),
  };
  const plain = {
    listViews: Object.fromEntries(
      Object.entries(VIEWS)
        .filter(([, v]) => v.object === 'exp_plain')
        .map(([k, v]) => [k, { data: { provider: 'object', object: 'exp_plain' }, columns: ['title'], ...v.body }]),
    ),
  };
  const dataset = {
    name: 'task_metrics',
    object: 'exp_task',
    dimensions: ['status', 'title', 'due']
      .map((f) => ({ name: f, field: f }))
      .concat([{ name: 'month', field: 'due', type: 'date', dateGranularity: 'month' } as never]),
    measures: [
      { name: 'n', aggregate: 'count' },
      { name: 'total', aggregate: 'sum', field: 'lat' },
    ],
  };
  const dashboard = { name: 'board', label: 'Board', widgets: Object.entries(WIDGETS).map(([id, w]) => ({ id, dataset: 'task_metrics', ...w })) };
  const built = buildGraph(collectStack({ objects, views: [container, plain], datasets: [dataset], dashboards: [dashboard] }));
  expect(built.issues).toEqual([]);
  return built.graph;
}

function seenOf(g: Graph, registry: ComponentRegistry, key: string): Seen {
  const view = [...g.views.values()].find((v) => v.key === key);
  if (view) return SEEN[expectedOutcome(checkView(view, g, registry).issues.map((i) => i.code))];
  const dashboard = g.dashboards.get('board') as DashboardNode;
  const widget = dashboard.widgets.find((w) => w.id === key);
  if (!widget) throw new Error(`no view or widget ${key}`);
  return SEEN[expectedOutcome(checkWidget(widget, g.datasets.get('task_metrics'), dashboard, registry).issues.map((i) => i.code))];
}

/** One row: the shape, what the user sees, and the renderer file that decides it. */
type Row = readonly [key: string, seen: Seen, source: string];

const TABLES: Record<string, readonly Row[]> = {
  'objectui-2026-02': [
    ['list', 'red box', 'packages/plugin-list/src/ListView.tsx'],
    ['table', 'red box', 'packages/plugin-list/src/ListView.tsx'],
    ['kanban_bound', 'renders', 'apps/console/src/components/ObjectView.tsx'],
    ['kanban_unbound_status', 'refuses', 'apps/console/src/components/ObjectView.tsx'],
    ['kanban_unbound_plain', 'refuses', 'apps/console/src/components/ObjectView.tsx'],
    ['calendar_bound', 'renders', 'apps/console/src/components/ObjectView.tsx'],
    ['calendar_unbound', 'refuses', 'apps/console/src/components/ObjectView.tsx'],
    ['timeline_via_calendar', 'refuses', 'packages/plugin-list/src/ListView.tsx'],
    ['gantt_start_only', 'refuses', 'apps/console/src/components/ObjectView.tsx'],
    ['map_unbound', 'renders', 'packages/plugin-list/src/ListView.tsx'],
    ['map_lat_lng', 'renders', 'packages/plugin-list/src/ListView.tsx'],
    ['tree', 'renders', 'packages/plugin-list/src/ListView.tsx'],
    ['form_simple', 'renders', 'packages/plugin-form/src/ObjectForm.tsx'],
    ['form_page', 'red box', 'packages/react/src/SchemaRenderer.tsx'],
    ['metric_one', 'renders', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['metric_two_measures', 'renders', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['metric_by_dimension', 'refuses', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['gauge_by_dimension', 'refuses', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['bar_one_dimension', 'renders', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['bar_no_dimension', 'refuses', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['pie_two_measures', 'refuses', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['pie_two_dimensions', 'refuses', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['combo_two_dimensions', 'refuses', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['pivot_four_dimensions', 'refuses', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['scatter_two_measures', 'renders', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['scatter_two_dimensions', 'renders', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['table_no_values', 'renders', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['table_counts_no_dimension', 'renders', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
    ['heatmap', 'red box', 'packages/plugin-dashboard/src/DashboardRenderer.tsx'],
  ],
  'objectui-2026-09': [
    ['list', 'degrades', 'packages/core/src/utils/normalize-list-view.ts'],
    ['table', 'degrades', 'packages/core/src/utils/normalize-list-view.ts'],
    ['kanban_bound', 'renders', 'packages/plugin-list/src/ListView.tsx'],
    ['kanban_unbound_status', 'degrades', 'packages/plugin-list/src/ListView.tsx'],
    ['kanban_unbound_plain', 'refuses', 'packages/plugin-kanban/src/ObjectKanban.tsx'],
    ['calendar_bound', 'renders', 'packages/plugin-list/src/ListView.tsx'],
    ['calendar_unbound', 'refuses', 'packages/plugin-calendar/src/ObjectCalendar.tsx'],
    ['timeline_via_calendar', 'renders', 'packages/plugin-list/src/ListView.tsx'],
    ['gantt_start_only', 'refuses', 'packages/plugin-gantt/src/ObjectGantt.tsx'],
    ['map_unbound', 'refuses', 'packages/plugin-map/src/ObjectMap.tsx'],
    ['map_lat_lng', 'renders', 'packages/plugin-list/src/ListView.tsx'],
    ['tree', 'renders', 'packages/plugin-list/src/ListView.tsx'],
    ['form_simple', 'renders', 'packages/plugin-form/src/ObjectForm.tsx'],
    ['form_page', 'red box', 'packages/react/src/SchemaRenderer.tsx'],
    ['metric_one', 'renders', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
    ['metric_two_measures', 'degrades', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
    ['metric_by_dimension', 'degrades', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
    ['gauge_by_dimension', 'degrades', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
    ['bar_one_dimension', 'renders', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
    ['bar_no_dimension', 'degrades', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
    ['pie_two_measures', 'degrades', 'packages/plugin-charts/src/AdvancedChartImpl.tsx'],
    ['pie_two_dimensions', 'degrades', 'packages/plugin-charts/src/AdvancedChartImpl.tsx'],
    ['combo_two_dimensions', 'renders', 'packages/core/src/utils/chart-series.ts'],
    ['pivot_four_dimensions', 'renders', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
    ['scatter_two_measures', 'refuses', 'packages/plugin-charts/src/AdvancedChartImpl.tsx'],
    ['scatter_two_dimensions', 'refuses', 'packages/plugin-charts/src/AdvancedChartImpl.tsx'],
    ['table_no_values', 'refuses', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
    ['table_counts_no_dimension', 'degrades', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
    ['heatmap', 'degrades', 'packages/plugin-dashboard/src/DatasetWidget.tsx'],
  ],
};

describe.each(Object.entries(RENDERER_PROFILES))('renderer profile %s: what each shape gets', (name, registry) => {
  const g = graph();
  const rows = TABLES[name] ?? [];
  it('has a row for every view and widget shape', () => expect(rows.map((r) => r[0]).sort()).toEqual([...Object.keys(VIEWS), ...Object.keys(WIDGETS)].sort()));
  it.each(rows)('%s → %s (decided in %s)', (key, seen, source) => {
    // The citation is one the profile's own data names, so the table and the registry cannot drift apart.
    expect(JSON.stringify(registry), `${name} names ${source}`).toContain(source);
    expect(seenOf(g, registry, key)).toBe(seen);
  });
});
