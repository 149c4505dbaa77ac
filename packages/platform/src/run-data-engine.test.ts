import { collectStack, type Graph } from '@bvl/metadata';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestPlatform } from '../test/test-platform.ts';
import type { Platform } from './open-platform.ts';
import { createDataEngine, type DataEngine } from './run-data-engine.ts';
import { stageDrafts } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';

// The real clock: `{today}` in filters is the database's current_date, seeds use `now`.
let platform: Platform;
let engine: DataEngine;
let graph: Graph;
const made = useTestPlatform((p) => {
  platform = p;
});
const cel = (source: string) => ({ dialect: 'cel', source });

beforeAll(async () => {
  const scope = { tenant: made.next(), package: 'app' };
  const doc = {
    objects: [
      {
        name: 'task',
        fields: {
          title: { type: 'text' },
          status: { type: 'select', options: ['open', 'done'] },
          hours: { type: 'number' },
          due: { type: 'date' },
          tags: { type: 'tags' },
          note: { type: 'text' },
        },
      },
    ],
    datasets: [
      {
        name: 'task_metrics',
        object: 'task',
        dimensions: [{ name: 'status', field: 'status' }],
        measures: [
          { name: 'n', aggregate: 'count' },
          { name: 'hours', aggregate: 'sum', field: 'hours' },
        ],
      },
    ],
    data: [
      {
        object: 'task',
        externalId: 'title',
        records: [
          { title: 'Write', status: 'open', hours: 3, due: cel('daysAgo(1)'), tags: ['a'], note: '' },
          { title: 'Review', status: 'open', hours: 1, due: cel('today()'), tags: ['a', 'b'] },
          { title: 'Ship', status: 'done', hours: 5, due: cel('daysFromNow(3)'), tags: [], note: 'x' },
        ],
      },
    ],
  };
  await stageDrafts(platform, scope, collectStack(doc, { draft: true }));
  const r = await publishPackage(platform, scope);
  if (r.outcome !== 'published') throw new Error(r.outcome);
  graph = r.graph;
  engine = createDataEngine(platform, { tenant: scope.tenant, graph });
});

const titles = async (q: Parameters<DataEngine['find']>[1]) => {
  const r = await engine.find('task', { columns: ['title'], sort: [{ field: 'title', order: 'asc' }], ...q });
  if (!r.ok) throw new Error(r.error);
  return r.rows.map((x) => x.title);
};

describe('data engine: find', () => {
  const cases: Array<[string, Parameters<DataEngine['find']>[1], string[]]> = [
    ['equals', { filter: [{ field: 'status', operator: 'equals', value: 'open' }] }, ['Review', 'Write']],
    ['not_equals', { filter: [{ field: 'status', operator: 'not_equals', value: 'open' }] }, ['Ship']],
    ['less than {today}', { filter: [{ field: 'due', operator: 'less_than', value: '{today}' }] }, ['Write']],
    ['equals {today}', { filter: [{ field: 'due', operator: 'equals', value: '{today}' }] }, ['Review']],
    ['after {today}', { filter: [{ field: 'due', operator: 'after', value: '{today}' }] }, ['Ship']],
    ['between', { filter: [{ field: 'hours', operator: 'between', value: [1, 3] }] }, ['Review', 'Write']],
    ['in', { filter: [{ field: 'title', operator: 'in', value: ['Ship', 'Nope'] }] }, ['Ship']],
    ['icontains', { filter: [{ field: 'title', operator: 'icontains', value: 'RIT' }] }, ['Write']],
    ['starts_with', { filter: [{ field: 'title', operator: 'starts_with', value: 'Re' }] }, ['Review']],
    ['tags contains', { filter: [{ field: 'tags', operator: 'contains', value: 'b' }] }, ['Review']],
    ['tags is_empty', { filter: [{ field: 'tags', operator: 'is_empty' }] }, ['Ship']],
    ['note is_empty', { filter: [{ field: 'note', operator: 'is_empty' }] }, ['Review', 'Write']],
    ['note is_not_null', { filter: [{ field: 'note', operator: 'is_not_null' }] }, ['Ship', 'Write']],
    [
      'two rows are ANDed',
      {
        filter: [
          { field: 'status', operator: 'eq', value: 'open' },
          { field: 'hours', operator: 'gt', value: 2 },
        ],
      },
      ['Write'],
    ],
    ['sort desc + limit', { sort: 'hours desc', limit: 1 }, ['Ship']],
  ];
  it.each(cases)('%s', async (_label, q, expected) => expect(await titles(q)).toEqual(expected));

  it('returns the database error as a value', async () => {
    expect(await engine.find('task', { columns: ['ghost'] })).toMatchObject({
      ok: false,
      error: 'column "ghost" does not exist',
      sql: expect.stringContaining('"ghost"'),
    });
    expect(await engine.find('nope', {})).toMatchObject({ ok: false, error: expect.stringMatching(/relation .*nope.* does not exist/) });
  });
  it('refuses a hostile name before SQL', async () =>
    expect(await engine.find('task', { columns: ['title" from pg_user; --'] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/refused before running SQL/),
    }));
});

describe('data engine: queryDataset', () => {
  it('runs L2-compiled SQL on the tenant schema (by name or node)', async () => {
    const r = await engine.queryDataset('task_metrics', { dimensions: ['status'], measures: ['n', 'hours'] });
    expect(r).toMatchObject({
      ok: true,
      rows: [
        { status: 'done', n: 1, hours: 5 },
        { status: 'open', n: 2, hours: 4 },
      ],
    });
    const node = graph.datasets.get('task_metrics')!;
    expect(await engine.queryDataset(node, { measures: ['n'], filter: { status: 'done' } })).toMatchObject({ ok: true, rows: [{ n: 1 }] });
  });
  it('reports a compile failure as a value with the L2 issues', async () => {
    const r = await engine.queryDataset('task_metrics', { measures: ['nope'] });
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/does not compile/), issues: [{ code: 'dataset_compile_error' }] });
    expect(await engine.queryDataset('ghost')).toMatchObject({ ok: false, error: 'dataset "ghost" is not published' });
  });
});
