import { describe, expect, it } from 'vitest';
import { graphOf, SMALL } from '../test/graphs.ts';
import { planProbes } from './plan-probes.ts';

// A tenant holds two packages; publishing one probes that one (an empty table of the other is not
// its failure to report).
const OTHER = {
  objects: [{ name: 'inv', fields: { name: { type: 'text' } } }],
  views: [{ list: { type: 'grid', data: { provider: 'object', object: 'inv' }, columns: ['name'] } }],
  dashboards: [{ name: 'stock', label: 'Stock', widgets: [{ id: 'n', type: 'metric', dataset: 'inv_metrics', values: ['n'] }] }],
  datasets: [{ name: 'inv_metrics', object: 'inv', dimensions: [], measures: [{ name: 'n', aggregate: 'count' }] }],
  data: [{ object: 'inv', records: [{ name: 'x' }] }],
};
const TENANT = {
  objects: [...SMALL.objects, ...OTHER.objects],
  views: [...SMALL.views, ...OTHER.views],
  datasets: [...SMALL.datasets, ...OTHER.datasets],
  dashboards: [...SMALL.dashboards, ...OTHER.dashboards],
  data: [...SMALL.data, ...OTHER.data],
};

describe('planProbes with a scope', () => {
  const graph = graphOf(TENANT);
  const mine = [
    { type: 'object', name: 'exp' },
    { type: 'view', name: 'exp.default' },
    { type: 'dataset', name: 'exp_metrics' },
    { type: 'dashboard', name: 'spending' },
    { type: 'seed', name: 'exp' },
  ];

  it('probes only the scope: its seeds, views, widgets and the objects they read', () => {
    const plan = planProbes(graph, { env: 'dev', scope: mine });
    expect(plan.seeds.map((s) => s.seed.name)).toEqual(['exp']);
    expect(plan.views.map((v) => v.view.name)).toEqual(['exp.default']);
    expect(plan.widgets.map((w) => w.widget.id)).toEqual(['total', 'by_status']);
    expect(plan.objects).toEqual(['exp']);
    expect(plan.total).toEqual({ seeds: 1, views: 1, widgets: 2, objects: 1 });
  });

  it('an object read by a scoped widget of another package is counted; without a scope everything is', () => {
    const borrowed = planProbes(graph, { env: 'dev', scope: [{ type: 'dashboard', name: 'stock' }] });
    expect(borrowed.objects).toEqual(['inv']);
    expect(borrowed.total).toEqual({ seeds: 0, views: 0, widgets: 1, objects: 1 });
    expect(planProbes(graph, { env: 'dev' }).total).toEqual({ seeds: 2, views: 2, widgets: 3, objects: 2 });
  });
});
