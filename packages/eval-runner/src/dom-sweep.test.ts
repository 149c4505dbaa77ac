import { buildGraph, collectStack } from '@bvl/metadata';
import { type DatasetSelection, rendererProfile } from '@bvl/render-contract';
import type { ViewRead } from '@bvl/runtime-probes';
import { describe, expect, it } from 'vitest';
import { type RowSource, SWEEP_VIEW_ROWS, sweepPublished, type WidgetOracle } from './dom-sweep.ts';

// The sweep renders with the reference renderer and happy-dom; rows come from a fake source here
// (the database-backed source is exercised by collect-evidence and the golden publish suite).
const STACK = {
  objects: [
    {
      name: 'task',
      label: 'Task',
      fields: {
        title: { type: 'text', label: 'Title' },
        status: {
          type: 'select',
          label: 'Status',
          options: [
            { label: 'Open', value: 'open' },
            { label: 'Done', value: 'done' },
          ],
        },
        hours: { type: 'number', label: 'Hours' },
      },
    },
  ],
  views: [
    {
      list: { type: 'grid', data: { provider: 'object', object: 'task' }, columns: ['title', 'status'] },
      listViews: {
        board: { type: 'kanban', data: { provider: 'object', object: 'task' }, columns: ['title'], kanban: { groupByField: 'status', columns: ['title'] } },
        loose: { type: 'kanban', data: { provider: 'object', object: 'task' }, columns: ['title'] },
        recent: { type: 'list', data: { provider: 'object', object: 'task' }, columns: ['title'] },
      },
      form: { type: 'simple', data: { provider: 'object', object: 'task' }, sections: [{ fields: ['title', 'status'] }] },
    },
  ],
  datasets: [
    { name: 'task_metrics', label: 'Tasks', object: 'task', dimensions: [{ name: 'status', field: 'status' }], measures: [{ name: 'n', aggregate: 'count' }] },
  ],
  dashboards: [
    {
      name: 'work',
      label: 'Work',
      widgets: [
        { id: 'count', type: 'metric', dataset: 'task_metrics', values: ['n'] },
        { id: 'by_status', type: 'bar', dataset: 'task_metrics', dimensions: ['status'], values: ['n'] },
        { id: 'lost', type: 'bar', dataset: 'task_stats', dimensions: ['status'], values: ['n'] },
        { id: 'odd', type: 'piechart', dataset: 'task_metrics', dimensions: ['status'], values: ['n'] },
        { id: 'flat', type: 'pie', dataset: 'task_metrics', values: ['n'] },
      ],
    },
  ],
};
const ROWS = [
  { id: '1', title: 'Write', status: 'open', hours: 2 },
  { id: '2', title: 'Ship', status: 'done', hours: 1 },
];

function fakeSource(fail?: { view?: string }) {
  const reads: Array<{ object: string; read: ViewRead }> = [];
  const queries: Array<{ dataset: string; selection: DatasetSelection }> = [];
  const source: RowSource = {
    readView: async (object, read) => {
      reads.push({ object, read });
      return fail?.view ? { ok: false, error: fail.view } : { ok: true, rows: ROWS };
    },
    queryDataset: async (dataset, selection) => {
      queries.push({ dataset: dataset.name, selection });
      return {
        ok: true,
        rows: selection.dimensions?.length
          ? [
              { status: 'open', n: 1 },
              { status: 'done', n: 1 },
            ]
          : [{ n: 2 }],
      };
    },
  };
  return { source, reads, queries };
}

describe('sweepPublished', () => {
  const { graph } = buildGraph(collectStack(STACK));

  it('renders every view and dashboard with its real rows and counts red boxes and empty widgets per artifact', async () => {
    const { source, reads, queries } = fakeSource();
    // The February objectui draws unknown types as the red box (the newest degrades them).
    const sweep = await sweepPublished(graph, source, rendererProfile('objectui-2026-02'));
    expect(sweep.artifacts.map((a) => [a.type, a.name, a.errorBoxes, a.emptyWidgets, a.rows])).toEqual([
      ['view', 'task.board', 0, 0, 2],
      ['view', 'task.default', 0, 0, 2],
      ['view', 'task.form', 0, 0, undefined],
      ['view', 'task.loose', 0, 1, 2],
      ['view', 'task.recent', 1, 0, 2],
      ['dashboard', 'work', 1, 1, undefined],
    ]);
    expect(sweep).toMatchObject({ errorBoxes: 2, emptyWidgets: 2 });
    expect(sweep.artifacts.find((a) => a.name === 'task.recent')?.unknownTypes).toEqual(['(none)']);
    // The form draws inputs: it reads nothing. List views read their first page, as a renderer does.
    expect(reads.map((r) => r.object)).toEqual(['task', 'task', 'task', 'task']);
    expect(reads[0]?.read).toMatchObject({ columns: ['title'], limit: SWEEP_VIEW_ROWS });
    const work = sweep.artifacts.find((a) => a.name === 'work')!;
    expect(work.unknownTypes).toEqual(['(none)']);
    // Each widget that got rows is checked for showing them: the red box and the empty widget show none.
    const shows = (checked: number, missing: string[] = []) => ({ shows: { checked, missing, missingCount: missing.length } });
    expect(work.widgets).toEqual([
      { id: 'count', rows: 1, errorBoxes: 0, emptyWidgets: 0, noData: 0, ...shows(1) },
      { id: 'by_status', rows: 2, errorBoxes: 0, emptyWidgets: 0, noData: 0, ...shows(2) },
      { id: 'lost', rows: 0, error: 'dataset "task_stats" does not exist', errorBoxes: 0, emptyWidgets: 0, noData: 1 },
      { id: 'odd', rows: 2, errorBoxes: 1, emptyWidgets: 0, noData: 0, ...shows(2, ['n=1 (row 1)', 'n=1 (row 2)']) },
      { id: 'flat', rows: 1, errorBoxes: 0, emptyWidgets: 1, noData: 0, ...shows(1, ['n=2 (row 1)']) },
    ]);
    // Each widget asks its dataset for its own selection (the one L3 probes run).
    expect(queries.map((q) => [q.dataset, q.selection.dimensions, q.selection.measures])).toEqual([
      ['task_metrics', [], ['n']],
      ['task_metrics', ['status'], ['n']],
      ['task_metrics', ['status'], ['n']],
      ['task_metrics', [], ['n']],
    ]);
  });

  it('asks an oracle (another engine) for each widget’s rows and says where it disagrees', async () => {
    const { source } = fakeSource();
    const asked: string[] = [];
    const oracle: WidgetOracle = {
      name: 'objectstack',
      rowsOf: async (dashboard, widget) => {
        asked.push(`${dashboard}.${widget}`);
        if (widget === 'count') return { ok: true, rows: [{ n: '2' }] }; // counts as strings: the same number
        if (widget === 'by_status')
          return {
            ok: true,
            rows: [
              { status: 'Open', n: 1 },
              { status: 'Done', n: 2 },
            ],
          };
        if (widget === 'odd') return { ok: false, error: 'no such dataset' };
        return undefined; // cannot answer this one
      },
    };
    const sweep = await sweepPublished(graph, source, rendererProfile('objectui-2026-02'), oracle);
    const work = sweep.artifacts.find((a) => a.name === 'work')!;
    // A widget whose own query failed is not asked.
    expect(asked).toEqual(['work.count', 'work.by_status', 'work.odd', 'work.flat']);
    expect(Object.fromEntries(work.widgets!.map((w) => [w.id, w.oracle]))).toEqual({
      count: { name: 'objectstack', agrees: true, differences: [] },
      by_status: { name: 'objectstack', agrees: false, differences: ['n: [1, 1] here, [1, 2] there'] },
      lost: undefined,
      odd: { name: 'objectstack', agrees: false, differences: ['the oracle failed: no such dataset'] },
      flat: undefined,
    });
  });

  it('keeps a failed read as evidence and draws the view empty', async () => {
    const { source } = fakeSource({ view: 'column "title" does not exist' });
    const sweep = await sweepPublished(graph, source);
    const board = sweep.artifacts.find((a) => a.name === 'task.default')!;
    expect(board).toMatchObject({ readError: 'column "title" does not exist', noData: 1, errorBoxes: 0 });
    expect(board.rows).toBeUndefined();
  });
});
