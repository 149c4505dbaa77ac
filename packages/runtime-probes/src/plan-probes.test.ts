import type { Graph } from '@bvl/metadata';
import type { CorpusName } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import { describe, expect, it } from 'vitest';
import { corpus, fixture, graphOf, SMALL } from '../test/graphs.ts';
import { planProbes } from './plan-probes.ts';

/** The plan has a probe for every seed, view and widget and counts every object, skipping nothing. */
function plansEverything(graph: Graph, seeds: number, views: number, widgets: number, objects: number): void {
  const plan = planProbes(graph, { env: 'dev' });
  expect(plan.total).toEqual({ seeds, views, widgets, objects });
  expect([plan.seeds.length, plan.views.length, plan.widgets.length, plan.objects.length]).toEqual([seeds, views, widgets, objects]);
  expect(plan.skipped).toEqual([]);
}

describeCorpora('planProbes on the corpora', () => {
  const corpora: Array<[CorpusName, number, number, number, number]> = [
    ['app-todo', 1, 3, 8, 1],
    ['app-crm', 5, 13, 6, 6],
    ['app-showcase', 19, 36, 37, 25],
  ];
  it.each(corpora)('%s: plans a probe for every seed (%i), view (%i) and widget (%i), and counts %i objects', (name, seeds, views, widgets, objects) =>
    plansEverything(corpus(name), seeds, views, widgets, objects),
  );
});

describe('planProbes', () => {
  it('field-service: plans a probe for every seed (8), view (27) and widget (26), and counts 8 objects (sys_business_unit is seeded)', () =>
    plansEverything(fixture('field-service'), 8, 27, 26, 8));

  it('skips what L1 already reports, each with its reason, so total = planned + skipped', () => {
    const plan = planProbes(
      graphOf({
        ...SMALL,
        views: [
          ...SMALL.views,
          { list: { type: 'grid', data: { provider: 'object', object: 'ghost' }, columns: ['x'] } },
          { viewKind: 'list', name: 'feed', object: 'exp', data: { provider: 'api', read: '/x' }, columns: ['title'] },
        ],
        dashboards: [
          {
            name: 'd',
            label: 'D',
            widgets: [
              { id: 'nods', type: 'metric', values: ['n'] },
              { id: 'gone', type: 'metric', dataset: 'nope', values: ['n'] },
            ],
          },
        ],
        data: [...SMALL.data, { object: 'ghost', records: [{}] }, { object: 'exp', env: ['prod'], records: [] }],
      }),
      { env: 'dev' },
    );
    expect(plan.skipped.map((s) => [s.plane, s.artifact.name, s.member ?? '', s.reason])).toEqual([
      ['seeds', 'exp#2', '', 'the seed\'s env (prod) does not include "dev"'],
      ['seeds', 'ghost', '', 'object "ghost" does not exist (reported by L1 as dangling_object)'],
      ['views', 'exp.feed', '', 'the view reads through provider "api", not an object table'],
      ['views', 'ghost.default', '', 'object "ghost" does not exist (reported by L1 as dangling_object)'],
      ['widgets', 'd', 'nods', 'the widget names no dataset (reported by L1 as dangling_dataset)'],
      ['widgets', 'd', 'gone', 'dataset "nope" does not exist (reported by L1 as dangling_dataset)'],
    ]);
    expect(plan.total.views).toBe(plan.views.length + 2);
    expect(plan.total.widgets).toBe(plan.widgets.length + 2);
  });
});
