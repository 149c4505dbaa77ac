import { describe, expect, it } from 'vitest';
import { graphOf } from '../test/graphs.ts';
import { judgeView, planViewProbes, viewRead } from './view-probe.ts';

const graph = graphOf({
  objects: [{ name: 'exp', fields: { title: { type: 'text' }, amount: { type: 'currency' }, cat: { type: 'lookup', reference: 'exp' } } }],
  views: [
    {
      list: {
        type: 'grid',
        data: { provider: 'object', object: 'exp' },
        columns: [{ field: 'title' }, 'cat.title', 'amount', 'title'],
        sort: 'amount desc, cat.title asc',
        filter: [
          { field: 'amount', operator: 'gt', value: 1 },
          { field: 'cat.title', operator: 'equals', value: 'x' },
        ],
      },
      form: { type: 'simple', data: { provider: 'object', object: 'exp' }, sections: [{ fields: ['title', { field: 'amount' }] }] },
    },
  ],
});

describe('viewRead', () => {
  it('is the first-page read of a list view: own columns, filter, sort, limit 1 (dotted lookup paths are the renderer’s)', () =>
    expect(viewRead(graph.views.get('exp.default')!)).toEqual({
      columns: ['title', 'amount'],
      filter: [{ field: 'amount', operator: 'gt', value: 1 }],
      sort: [{ field: 'amount', order: 'desc' }],
      limit: 1,
    }));
  it('is the record a form loads: its section fields, limit 1', () =>
    expect(viewRead(graph.views.get('exp.form')!)).toEqual({ columns: ['title', 'amount'], limit: 1 }));
});

describe('judgeView', () => {
  const [probe] = planViewProbes(graph).probes;
  it('passes a read that works', () => expect(judgeView(probe!, { ok: true, value: { rows: 0 } })).toBeUndefined());
  it('a failed read is view_read_failed carrying the database error and the read', () => {
    const issue = judgeView(probe!, { ok: false, error: 'column "amount" does not exist', sql: 'select …' })!;
    expect(issue).toMatchObject({ code: 'view_read_failed', artifact: { type: 'view', name: 'exp.default' }, ref: { type: 'object', name: 'exp' } });
    expect(issue.message).toBe(
      'View "exp.default" cannot read its first page from object "exp": column "amount" does not exist. The renderer runs this read (columns title, amount; sort amount desc; its filter; limit 1) when the view opens. SQL: select …',
    );
  });
});
