import { exampleDoc } from '@bvl/test-support';
import { describe, expect, it } from 'vitest';
import { type Answer, planUnits, type Unit } from './engine-units.ts';
import { normaliseRows, optionLabels } from './normalise.ts';
import { canonicalSeeds, engineSelection, viewQuery } from './objectstack-engine.ts';
import { compareEngine, withDrafts } from './run-engine.ts';

const stack = {
  objects: [
    {
      name: 'o',
      fields: {
        status: { type: 'select', options: [{ label: 'Approved', value: 'approved' }] },
        on: { type: 'date' },
      },
    },
  ],
  datasets: [
    {
      name: 'd',
      object: 'o',
      dimensions: [
        { name: 'status', field: 'status', type: 'string' },
        { name: 'month', field: 'on', type: 'date', dateGranularity: 'month' },
        { name: 'week', field: 'on', type: 'date', dateGranularity: 'week' },
      ],
      measures: [{ name: 'n', aggregate: 'count' }],
    },
  ],
};

describe('normaliseRows', () => {
  const options = optionLabels(stack);
  const norm = (side: 'engine' | 'bvl', rows: Record<string, unknown>[], dimensions: string[]) =>
    normaliseRows(rows, { side, selection: { measures: ['n'], dimensions }, dataset: 'd', options });

  it('reads option labels back as values, counts in strings as numbers, and sorts the rows', () => {
    expect(
      norm(
        'engine',
        [
          { status: 'Approved', n: '2' },
          { status: null, n: '1' },
        ],
        ['status'],
      ),
    ).toEqual(
      norm(
        'bvl',
        [
          { status: null, n: 1 },
          { status: 'approved', n: 2 },
        ],
        ['status'],
      ),
    );
  });

  it('names a month, a week and a quarter bucket one way whichever engine answered', () => {
    expect(norm('engine', [{ month: '2026-03', n: 1 }], ['month'])).toEqual(norm('bvl', [{ month: new Date(Date.UTC(2026, 2, 1)), n: 1 }], ['month']));
    expect(norm('engine', [{ week: '2026-W45', n: 1 }], ['week'])).toEqual(['["2026-11-02",1]']);
    expect(norm('bvl', [{ week: '2026-11-05T00:00:00.000Z', n: 1 }], ['week'])).toEqual(['["2026-11-02",1]']);
  });

  it('still tells different numbers and different groups apart', () => {
    expect(norm('engine', [{ status: 'Approved', n: '2' }], ['status'])).not.toEqual(norm('bvl', [{ status: 'approved', n: 3 }], ['status']));
    expect(norm('engine', [{ month: '2026-04', n: 1 }], ['month'])).not.toEqual(norm('bvl', [{ month: '2026-03-01', n: 1 }], ['month']));
  });
});

describe('the questions put to the engine', () => {
  it('asks a view’s read with the view filter as the engine’s where', () => {
    expect(
      viewQuery({
        columns: ['a', 'b'],
        filter: [
          { field: 'a', operator: 'less_than', value: 10 },
          { field: 'b', operator: 'is_empty' },
        ],
        sort: [{ field: 'a', order: 'desc' }],
        limit: 1,
      }),
    ).toEqual({ fields: ['a', 'b'], where: { $and: [{ a: { $lt: 10 } }, { b: { $eq: null } }] }, orderBy: [{ field: 'a', order: 'desc' }], limit: 1 });
  });

  it('passes a widget’s filter as the runtimeFilter of ObjectStack’s selection', () => {
    expect(engineSelection({ measures: ['n'], filter: { status: 'approved' }, limit: 5 })).toEqual({
      measures: ['n'],
      runtimeFilter: { status: 'approved' },
      limit: 5,
    });
  });

  it('gives seeds’ alias keys their canonical names', () => {
    expect(canonicalSeeds({ data: [{ object: 'o', key: 'name', rows: [{ name: 'x' }] }] })).toEqual({
      data: [{ object: 'o', externalId: 'name', records: [{ name: 'x' }] }],
    });
  });

  it('plans a seed per object, each view and each widget of the example, and lays the drafts over it by name', () => {
    const { units } = planUnits(exampleDoc('app'));
    expect(units.map((u) => u.kind)).toEqual([...Array(3).fill('seed'), ...Array(5).fill('view'), ...Array(4).fill('widget')]);
    const drafted = withDrafts(exampleDoc('app'), exampleDoc('drafts'));
    expect((drafted.dashboards as Array<{ widgets: unknown[] }>)[0]!.widgets).toHaveLength(3);
    expect((drafted.views as unknown[]).length).toBe((exampleDoc('app').views as unknown[]).length + 1);
  });
});

describe('compareEngine', () => {
  const units: Unit[] = [
    { kind: 'seed', key: 'seed o', object: 'o' },
    { kind: 'widget', key: 'widget w#a', dataset: 'd', object: 'o', selection: { measures: ['n'] } },
    { kind: 'widget', key: 'widget w#b', dataset: 'd', object: 'p', selection: { measures: ['n'] } },
    { kind: 'view', key: 'view o.x', object: 'o', read: { columns: [], limit: 1 } },
  ];
  const a = (key: string, rest: Partial<Answer>): Answer => ({ key, outcome: 'rows', ...rest });

  it('agrees on equal outcomes and numbers, and leaves unanswered units uncompared', () => {
    const same = [a('seed o', { count: 2 }), a('widget w#a', { rows: ['[1]'] }), a('widget w#b', { rows: [] })];
    expect(compareEngine('s', units, same, same)).toEqual({ agree: 3, notCompared: 1, disagreements: [] });
  });

  it('sides a disagreement with the worse outcome, and names bvl’s codes', () => {
    const r = compareEngine('s', units, [a('widget w#b', { outcome: 'rows' })], [a('widget w#b', { outcome: 'error', codes: ['bvl unknown_measure'] })]);
    expect(r.disagreements.map((d) => [d.only, d.signatures])).toEqual([['bvl', ['widget engine rows / bvl bvl unknown_measure @ s widget w#b']]]);
    const e = compareEngine('s', units, [a('view o.x', { outcome: 'error', error: 'boom' })], [a('view o.x', { outcome: 'empty' })]);
    expect(e.disagreements.map((d) => [d.only, d.signatures[0]])).toEqual([['objectstack', 'view engine error / bvl empty @ s view o.x']]);
  });

  it('gives a widget over a seed whose rows differ that seed’s signature, and others their own', () => {
    const r = compareEngine(
      's',
      units,
      [a('seed o', { count: 1 }), a('widget w#a', { rows: ['[1]'] }), a('widget w#b', { rows: ['[1]'] })],
      [a('seed o', { count: 2 }), a('widget w#a', { rows: ['[2]'] }), a('widget w#b', { rows: ['[2]'] })],
    );
    expect(r.disagreements.map((d) => d.signatures[0])).toEqual([
      'seed rows landed differ: engine 1 / bvl 2 @ s seed o',
      'widget answers follow the rows of seed o @ s',
      'widget numbers differ @ s widget w#b',
    ]);
  });
});
