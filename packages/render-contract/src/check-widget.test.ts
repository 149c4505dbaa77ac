import { BuildIssueSchema } from '@bvl/build-issue';
import { buildGraph, collectStack, type DashboardNode, type Graph } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { checkWidget } from './check-widget.ts';
import { isRegistered } from './component-registry.ts';
import { DEFAULT_REGISTRY, RENDERER_PROFILES } from './renderer-profiles.ts';

// The mechanics of checkWidget, on the 2026-02 profile (renderer-profiles.test.ts holds every profile's outcome table).
const FEB = RENDERER_PROFILES['objectui-2026-02']!;

import { translateWidget } from './translate-widget.ts';

/** ChartType in ObjectStack's chart.zod.ts (objectstack-format.md §1.3). */
const CHART_TYPES = [
  'bar',
  'horizontal-bar',
  'column',
  'line',
  'area',
  'pie',
  'donut',
  'funnel',
  'scatter',
  'treemap',
  'sankey',
  'combo',
  'gauge',
  'solid-gauge',
  'metric',
  'kpi',
  'bullet',
  'radar',
  'table',
  'pivot',
];

const stack = (widget: Record<string, unknown>) => ({
  objects: [{ name: 'exp_expense', fields: { amount: { type: 'currency' }, status: { type: 'select', options: ['open'] }, kind: { type: 'text' } } }],
  datasets: [
    {
      name: 'exp_metrics',
      object: 'exp_expense',
      dimensions: [
        { name: 'status', field: 'status', label: 'Status' },
        { name: 'kind', field: 'kind' },
      ],
      measures: [
        { name: 'n', aggregate: 'count', label: 'Expenses' },
        { name: 'open_n', aggregate: 'count', filter: { status: 'open' } },
        { name: 'total', aggregate: 'sum', field: 'amount' },
        { name: 'share', derived: { op: 'ratio', of: ['open_n', 'n'] } },
      ],
    },
  ],
  dashboards: [
    {
      name: 'exp_board',
      label: 'Board',
      widgets: [
        { id: 'pad', type: 'metric', dataset: 'exp_metrics', values: ['n'] },
        { id: 'w', dataset: 'exp_metrics', ...widget },
      ],
    },
  ],
});

function widgetIn(widget: Record<string, unknown>): { graph: Graph; dashboard: DashboardNode } {
  const { graph } = buildGraph(collectStack(stack(widget)));
  return { graph, dashboard: graph.dashboards.get('exp_board') as DashboardNode };
}

function check(widget: Record<string, unknown>) {
  const { graph, dashboard } = widgetIn(widget);
  const w = dashboard.widgets[1];
  if (!w) throw new Error('widget not built');
  return checkWidget(w, graph.datasets.get(String(widget.dataset ?? 'exp_metrics')), dashboard, FEB);
}

interface Case {
  readonly name: string;
  readonly widget: Record<string, unknown>;
}

const valid: ReadonlyArray<Case & { component: string }> = [
  { name: 'metric, one measure', widget: { type: 'metric', values: ['total'] }, component: 'metric' },
  { name: 'no type is a metric', widget: { values: ['total'] }, component: 'metric' },
  { name: 'kpi', widget: { type: 'kpi', values: ['n', 'total'] }, component: 'metric-card' },
  { name: 'bar, one dimension', widget: { type: 'bar', dimensions: ['status'], values: ['n'] }, component: 'chart' },
  { name: 'bar split by a second dimension', widget: { type: 'bar', dimensions: ['status', 'kind'], values: ['n'] }, component: 'chart' },
  { name: 'combo, two measures', widget: { type: 'combo', dimensions: ['status'], values: ['n', 'share'] }, component: 'chart' },
  { name: 'sankey with one dimension (as app-showcase writes it)', widget: { type: 'sankey', dimensions: ['status'], values: ['n'] }, component: 'chart' },
  { name: 'gauge', widget: { type: 'gauge', values: ['share'] }, component: 'chart' },
  { name: 'bullet: value and target', widget: { type: 'bullet', values: ['total', 'n'] }, component: 'chart' },
  { name: 'table of records by a dimension', widget: { type: 'table', dimensions: ['status'], values: ['n', 'total'] }, component: 'data-table' },
  { name: 'table of a sum only (not count-only)', widget: { type: 'table', values: ['total'] }, component: 'data-table' },
  { name: 'table of a derived ratio (not count-only)', widget: { type: 'table', values: ['share'] }, component: 'data-table' },
  { name: 'pivot of two dimensions', widget: { type: 'pivot', dimensions: ['status', 'kind'], values: ['n'] }, component: 'data-table' },
];

const invalid: ReadonlyArray<Case & { issues: Array<{ code: string; path: string; patch?: unknown }> }> = [
  {
    name: 'unknown type, near miss patched',
    widget: { type: 'bars', dimensions: ['status'], values: ['n'] },
    issues: [{ code: 'unknown_widget_type', path: '/widgets/1/type', patch: [{ op: 'replace', path: '/widgets/1/type', value: 'bar' }] }],
  },
  { name: 'unknown type, no near miss', widget: { type: 'heatmap', values: ['n'] }, issues: [{ code: 'unknown_widget_type', path: '/widgets/1/type' }] },
  { name: 'bar without a dimension', widget: { type: 'bar', values: ['n'] }, issues: [{ code: 'unsatisfiable_query_shape', path: '/widgets/1/dimensions' }] },
  {
    name: 'pie with two measures',
    widget: { type: 'pie', dimensions: ['status'], values: ['n', 'total'] },
    issues: [{ code: 'unsatisfiable_query_shape', path: '/widgets/1/values' }],
  },
  {
    name: 'pie with two dimensions',
    widget: { type: 'pie', dimensions: ['status', 'kind'], values: ['n'] },
    issues: [{ code: 'unsatisfiable_query_shape', path: '/widgets/1/dimensions' }],
  },
  {
    name: 'metric grouped by a dimension',
    widget: { type: 'metric', dimensions: ['status'], values: ['n'] },
    issues: [{ code: 'unsatisfiable_query_shape', path: '/widgets/1/dimensions' }],
  },
  { name: 'metric without values', widget: { type: 'metric' }, issues: [{ code: 'unsatisfiable_query_shape', path: '/widgets/1/values' }] },
  { name: 'table selecting nothing', widget: { type: 'table' }, issues: [{ code: 'unsatisfiable_query_shape', path: '/widgets/1' }] },
  {
    name: 'table of counts only, no dimension (#1719)',
    widget: { type: 'table', values: ['n', 'open_n'] },
    issues: [{ code: 'count_only_table', path: '/widgets/1/dimensions' }],
  },
  { name: 'pivot of a count, no dimension', widget: { type: 'pivot', values: ['n'] }, issues: [{ code: 'count_only_table', path: '/widgets/1/dimensions' }] },
];

describe('checkWidget (objectui-2026-02)', () => {
  it.each(valid)('valid: $name', ({ widget, component }) => {
    const { schema, issues } = check(widget);
    expect(issues).toEqual([]);
    expect(schema.type).toBe(component);
  });

  it.each(invalid)('invalid: $name', ({ widget, issues: expected }) => {
    const { issues } = check(widget);
    expect(issues.map((i) => ({ code: i.code, path: i.path, ...(i.patch ? { patch: i.patch } : {}) }))).toEqual(expected);
    for (const issue of issues) {
      expect(BuildIssueSchema.parse(issue)).toEqual(issue);
      expect(issue.artifact).toEqual({ type: 'dashboard', name: 'exp_board' });
      expect(issue.ref).toEqual({ type: 'dashboard', name: 'exp_board', member: 'w' });
      expect(issue.message).toMatch(/Widget "w" of dashboard "exp_board"/);
    }
  });

  it('count_only_table is a warning; the others are errors', () => {
    expect(check({ type: 'table', values: ['n'] }).issues[0]?.severity).toBe('warning');
    expect(check({ type: 'pie', values: ['n'] }).issues[0]?.severity).toBe('error');
  });

  it('a widget whose dataset is missing is still translated, and L2 does not repeat dangling_dataset', () => {
    const { issues, schema } = check({ type: 'bar', dataset: 'nope', dimensions: ['status'], values: ['n'] });
    expect(issues).toEqual([]);
    expect(schema.props.measures).toEqual([{ name: 'n', label: 'n', exists: false }]);
  });

  it('an unknown type translates to a schema with no type (the renderer has no component for it)', () => {
    expect(check({ type: 'heatmap', values: ['n'] }).schema.type).toBeUndefined();
  });
});

describe('translateWidget', () => {
  for (const [profile, registry] of Object.entries(RENDERER_PROFILES)) {
    it.each(CHART_TYPES)(`${profile}: every ObjectStack chart type translates to a registered component: %s`, (type) => {
      const { graph, dashboard } = widgetIn({ type, dimensions: ['status'], values: ['n'] });
      const schema = translateWidget(dashboard.widgets[1]!, graph.datasets.get('exp_metrics'), dashboard, registry);
      expect(isRegistered(registry, schema.type)).toBe(true);
    });
  }

  it('the 2026-02 registry translates exactly the ChartType enum; the newest also its closest-family aliases', () => {
    expect(Object.keys(FEB.widgets.types).sort()).toEqual([...CHART_TYPES].sort());
    expect(Object.keys(DEFAULT_REGISTRY.widgets.types)).toEqual(expect.arrayContaining(CHART_TYPES));
  });

  it('carries the variant, labels and aggregates', () => {
    const { graph, dashboard } = widgetIn({ type: 'donut', title: 'Split', dimensions: ['status'], values: ['n'] });
    expect(translateWidget(dashboard.widgets[1]!, graph.datasets.get('exp_metrics'), dashboard, FEB)).toEqual({
      type: 'chart',
      id: 'exp_board.w',
      props: {
        title: 'Split',
        widgetType: 'donut',
        chartType: 'donut',
        dataset: 'exp_metrics',
        dimensions: [{ name: 'status', label: 'Status', exists: true }],
        measures: [{ name: 'n', label: 'Expenses', exists: true, aggregate: 'count' }],
      },
    });
  });
});

describe('checkWidget (objectui-2026-09)', () => {
  const NEWEST = RENDERER_PROFILES['objectui-2026-09']!;
  const newest = (widget: Record<string, unknown>) => {
    const { graph, dashboard } = widgetIn(widget);
    return checkWidget(dashboard.widgets[1]!, graph.datasets.get('exp_metrics'), dashboard, NEWEST);
  };
  it('a chart with no dimension is drawn as a KPI tile of its first measure: a warning, and the tile is what renders', () => {
    const { schema, issues } = newest({ type: 'bar', values: ['n'] });
    expect(schema).toMatchObject({ type: 'dataset-kpi', props: { substitutedFor: { type: 'bar' } } });
    expect(issues.map((i) => [i.code, i.severity, i.path])).toEqual([['query_shape_degraded', 'warning', '/widgets/1/dimensions']]);
    expect(issues[0]?.message).toBe(
      'Widget "w" of dashboard "exp_board" is a bar with no dimension: objectui-2026-09 draws it, but with no dimension DatasetWidget draws a KPI tile of the first measure instead.',
    );
  });
  it('a scatter of two measures is refused, naming the renderer refusal', () => {
    const { issues } = newest({ type: 'scatter', dimensions: ['status'], values: ['n', 'total'] });
    expect(issues.map((i) => [i.code, i.severity, i.path])).toEqual([['unsatisfiable_query_shape', 'error', '/widgets/1/values']]);
    expect(issues[0]?.message).toContain('a scatter plots one measure and refuses a second series');
    expect(issues[0]?.fix).toBe('Keep one measure and at most one dimension in widget "w", or use a bar chart.');
  });
  it('a type it does not draw is a bar chart: a warning with the near miss as patch', () => {
    const { schema, issues } = newest({ type: 'bars', dimensions: ['status'], values: ['n'] });
    expect(schema).toMatchObject({ type: 'chart', props: { chartType: 'bar', substitutedFor: { type: 'bars' } } });
    expect(issues).toMatchObject([{ code: 'widget_type_fallback', severity: 'warning', patch: [{ op: 'replace', path: '/widgets/1/type', value: 'bar' }] }]);
  });
  it('no values is refused whatever the type (DatasetWidget asks to pick measures)', () => {
    for (const type of ['table', 'metric', 'bar'])
      expect(
        newest({ type, dimensions: ['status'], values: [] }).issues.map((i) => i.code),
        type,
      ).toEqual(['unsatisfiable_query_shape']);
  });
});
