import { buildGraph, collectStack } from '@bvl/metadata';
import { propertyRuns } from '@bvl/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkView, viewIssues } from './check-view.ts';
import { checkWidget, widgetIssues } from './check-widget.ts';
import type { ComponentRegistry } from './component-registry.ts';
import { RENDERER_PROFILES } from './renderer-profiles.ts';

// L2's pass over a graph judges views and widgets without building their component schemas
// (viewIssues, widgetIssues): the issues must be exactly checkView's and checkWidget's, on every
// profile and on registries whose binding or variant props share a name with another prop of the
// translation (where only the whole translation knows the value).

const clone = (r: ComponentRegistry): Record<string, any> => JSON.parse(JSON.stringify(r));

/** A kanban that needs `columns` bound (a prop every list view's translation sets) and binds `label`. */
function viewCollision(): ComponentRegistry {
  const r = clone(RENDERER_PROFILES['objectui-2026-09']!);
  r.name = 'view-collision';
  r.components['object-kanban'].requiredProps = ['columns', 'groupBy'];
  r.views.list.types.kanban.bind.label = { from: 'title', kind: 'value' };
  return r as ComponentRegistry;
}

/** A KPI tile whose variant prop is `widgetType`, so a chart drawn as one is judged by its own type's variant. */
function widgetCollision(): ComponentRegistry {
  const r = clone(RENDERER_PROFILES['objectui-2026-09']!);
  r.name = 'widget-collision';
  r.components['dataset-kpi'].variantProp = 'widgetType';
  r.components['dataset-kpi'].variants = {
    bar: { rules: [{ when: { measures: { min: 0 } }, outcome: 'refuses', does: 'a bar drawn as a tile refuses (test registry)' }] },
  };
  return r as ComponentRegistry;
}

const REGISTRIES: ComponentRegistry[] = [...Object.values(RENDERER_PROFILES), viewCollision(), widgetCollision()];

const task = {
  name: 'exp_task',
  fields: {
    title: { type: 'text', label: 'Title' },
    status: { type: 'select', options: [{ label: 'Open', value: 'open' }, 'done'] },
    due: { type: 'date' },
    starts: { type: 'datetime' },
    where: { type: 'location' },
    parent: { type: 'lookup', reference: 'exp_task' },
  },
};
const dataset = {
  name: 'exp_ds',
  object: 'exp_task',
  dimensions: [
    { name: 'status', field: 'status' },
    { name: 'month', field: 'due', dateGranularity: 'month' },
  ],
  measures: [
    { name: 'n', aggregate: 'count' },
    { name: 'won', aggregate: 'count', filter: { status: 'done' } },
    { name: 'rate', derived: { op: 'ratio', of: ['won', 'n'] } },
  ],
};

const defaultRegistry = RENDERER_PROFILES['objectui-2026-09']!;
const listTypes = [...new Set(REGISTRIES.flatMap((r) => Object.keys(r.views.list.types)))];
const formTypes = [...new Set(REGISTRIES.flatMap((r) => Object.keys(r.views.form.types)))];
const blocks = [...new Set(Object.values(defaultRegistry.views.list.types).flatMap((e) => (e.block ? [e.block] : [])))];
const bindKeys = [
  ...new Set(
    Object.values(defaultRegistry.views.list.types).flatMap((e) =>
      Object.values(e.bind ?? {}).flatMap((b) => [b.from, ...(b.alsoFrom ?? []).map((a) => a.from)]),
    ),
  ),
  'title',
];
const value = fc.constantFrom<unknown>('title', 'status', 'due', 'starts', 'where', 'parent', 'nope', '', null, 42, ['status', 'due'], { x: 1 });

const listBody = fc.record(
  {
    type: fc.constantFrom<unknown>(...listTypes, 'nope', 'list', 7),
    columns: fc.array(fc.constantFrom('title', 'status', 'nope'), { maxLength: 3 }),
    label: fc.string({ maxLength: 3 }),
    ...Object.fromEntries(blocks.map((b) => [b, fc.dictionary(fc.constantFrom(...bindKeys), value, { maxKeys: 4 })])),
  },
  { requiredKeys: [] },
);
const formBody = fc.record(
  {
    type: fc.constantFrom<unknown>(...formTypes, 'nope'),
    sections: fc.array(fc.record({ label: fc.string({ maxLength: 3 }), fields: fc.array(fc.constantFrom('title', 'status', 'nope'), { maxLength: 3 }) }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: [] },
);
const widget = fc.record(
  {
    type: fc.constantFrom<unknown>(...Object.keys(defaultRegistry.widgets.types), 'nope'),
    title: fc.string({ maxLength: 3 }),
    dimensions: fc.uniqueArray(fc.constantFrom('status', 'month', 'nope'), { maxLength: 3 }),
    values: fc.uniqueArray(fc.constantFrom('n', 'won', 'rate', 'nope'), { maxLength: 4 }),
    chartConfig: fc.record({ xAxis: fc.record({ field: fc.constantFrom('status', 'nope') }) }),
  },
  { requiredKeys: [] },
);

describe('viewIssues and widgetIssues are checkView and checkWidget without the schema', () => {
  it('gives the same issues on random views and widgets, on every profile and on colliding registries', () => {
    fc.assert(
      fc.property(
        fc.array(listBody, { maxLength: 3 }),
        fc.array(formBody, { maxLength: 2 }),
        fc.array(widget, { maxLength: 4 }),
        fc.boolean(),
        (lists, forms, widgets, stage) => {
          const object = stage ? { ...task, stageField: 'status' } : task;
          const doc = {
            objects: [object],
            views: [
              {
                listViews: Object.fromEntries(lists.map((b, i) => [`l${i}`, { data: { provider: 'object', object: 'exp_task' }, ...b }])),
                formViews: Object.fromEntries(forms.map((b, i) => [`f${i}`, { data: { provider: 'object', object: 'exp_task' }, ...b }])),
              },
            ],
            datasets: [dataset],
            dashboards: [{ name: 'exp_board', widgets: widgets.map((w, i) => ({ id: `w${i}`, dataset: 'exp_ds', ...w })) }],
          };
          const { graph } = buildGraph(collectStack(doc));
          for (const registry of REGISTRIES) {
            for (const view of graph.views.values()) {
              if (view.invalid) continue;
              expect(viewIssues(view, graph, registry), `${registry.name} ${view.name}`).toEqual(checkView(view, graph, registry).issues);
            }
            for (const d of graph.dashboards.values())
              for (const w of d.widgets) {
                const ds = graph.datasets.get(w.def.dataset ?? '');
                expect(widgetIssues(w, ds, d, registry), `${registry.name} ${w.id}`).toEqual(checkWidget(w, ds, d, registry).issues);
              }
          }
        },
      ),
      propertyRuns(150, 3_000),
    );
  });

  it('the colliding registries change issues (the translation is consulted where a prop shares a name)', () => {
    const doc = {
      objects: [task],
      views: [
        { listViews: { board: { type: 'kanban', data: { provider: 'object', object: 'exp_task' }, columns: ['title'], kanban: { groupByField: 'status' } } } },
      ],
      datasets: [dataset],
      dashboards: [{ name: 'exp_board', widgets: [{ id: 'w', type: 'bar', dataset: 'exp_ds', values: ['n'] }] }],
    };
    const { graph } = buildGraph(collectStack(doc));
    const view = graph.views.get('exp_task.board')!;
    const [d] = [...graph.dashboards.values()];
    const w = d!.widgets[0]!;
    const ds = graph.datasets.get('exp_ds');
    // With columns bound by the translation, the kanban is fully bound on the colliding registry too.
    expect(viewIssues(view, graph, viewCollision())).toEqual([]);
    expect(widgetIssues(w, ds, d!, defaultRegistry).map((i) => i.code)).toEqual(['query_shape_degraded']);
    expect(widgetIssues(w, ds, d!, widgetCollision()).map((i) => i.code)).toEqual(['unsatisfiable_query_shape']);
  });
});
