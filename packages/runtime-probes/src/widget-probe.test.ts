import { describe, expect, it } from 'vitest';
import { graphOf, SMALL } from '../test/graphs.ts';
import { judgeWidget, planWidgetProbes, WIDGET_ROW_LIMIT, widgetSelection } from './widget-probe.ts';

const graph = graphOf({
  ...SMALL,
  dashboards: [
    ...SMALL.dashboards,
    {
      name: 'more',
      label: 'More',
      widgets: [
        { id: 'bare', type: 'metric', dataset: 'exp_metrics' },
        { id: 'capped', type: 'table', dataset: 'exp_metrics', dimensions: ['status'], values: ['n'], options: { limit: 5 } },
        { id: 'cloud', type: 'metric', dataset: 'exp_metrics', values: ['n'], requiresObject: 'sys_package_installation' },
      ],
    },
  ],
});
const probes = planWidgetProbes(graph).probes;
const probe = (id: string) => probes.find((p) => p.widget.id === id)!;

describe('widgetSelection', () => {
  it("is the widget's values, dimensions and filter", () =>
    expect(probe('by_status').selection).toEqual({ measures: ['n'], dimensions: ['status'], filter: { status: 'archived' }, limit: WIDGET_ROW_LIMIT }));
  it('falls back to the first measure when the widget names none', () =>
    expect(probe('bare').selection).toMatchObject({ measures: ['total'], dimensions: [] }));
  it("keeps the widget's own smaller limit", () => expect(widgetSelection(probe('capped').widget, probe('capped').dataset)?.limit).toBe(5));
  it('carries the options that change the query, as the renderer sends them (a sortBy it does not select is dropped)', () => {
    const { widget, dataset } = probe('capped');
    const ordered = { ...widget, def: { ...widget.def, options: { dateGranularity: 'week', sortBy: 'n', sortOrder: 'desc' } } };
    expect(widgetSelection(ordered, dataset)).toMatchObject({ dateGranularity: 'week', order: { n: 'desc' } });
    const stale = { ...widget, def: { ...widget.def, options: { sortBy: 'gone' } } };
    expect(widgetSelection(stale, dataset)).not.toHaveProperty('order');
  });
});

describe('planWidgetProbes', () => {
  it('skips a widget ObjectStack hides unless its requiresObject is registered, saying why', () => {
    expect(probes.map((p) => p.widget.id)).not.toContain('cloud');
    expect(planWidgetProbes(graph).skipped).toContainEqual({
      plane: 'widgets',
      artifact: { type: 'dashboard', name: 'more' },
      member: 'cloud',
      reason: 'the widget shows only when object "sys_package_installation" is registered (requiresObject)',
    });
  });
});

describe('judgeWidget', () => {
  const p = probe('by_status');
  it('has no emptiness verdict on a filter by the signed-in user: the probe runs as nobody', () => {
    const mine = { ...p, selection: { ...p.selection, filter: { owner_id: '{current_user_id}' } } };
    expect(judgeWidget(mine, { ok: true, value: { rows: 0, sql: 's' } }, 3)).toBeUndefined();
    expect(judgeWidget(mine, { ok: false, error: 'boom', sql: 's' }, 3)?.code).toBe('widget_query_failed');
  });
  it('passes rows', () => expect(judgeWidget(p, { ok: true, value: { rows: 2, sql: 's' } }, 3)).toBeUndefined());
  it('a failed query is widget_query_failed with the error and SQL', () =>
    expect(judgeWidget(p, { ok: false, error: 'column exp.status does not exist', sql: 'select x' }, 3)).toMatchObject({
      code: 'widget_query_failed',
      artifact: { type: 'dashboard', name: 'spending' },
      ref: { type: 'dashboard', name: 'spending', member: 'by_status' },
      path: '/widgets/1',
      message:
        'Widget "by_status" of dashboard "spending" asks dataset "exp_metrics" for measures n by status filtered by {"status":"archived"}, and the query fails: column exp.status does not exist. SQL: select x',
    }));
  it('no rows on a populated object is empty_query, with the SQL and what to check', () => {
    const issue = judgeWidget(p, { ok: true, value: { rows: 0, sql: 'select n from t where status = $1', params: ['archived'] } }, 3)!;
    expect(issue).toMatchObject({ code: 'empty_query', ref: { member: 'by_status' } });
    expect(issue.message).toBe(
      'Widget "by_status" of dashboard "spending" asks dataset "exp_metrics" for measures n by status filtered by {"status":"archived"} and gets no rows, while object "exp" has 3 rows: the widget renders empty. SQL: select n from t where status = $1 with parameters ["archived"]',
    );
    expect(issue.fix).toMatch(/Check the widget's filter \{"status":"archived"\}/);
  });
  it('no rows on an empty object, or an uncountable one, is not a finding', () => {
    expect(judgeWidget(p, { ok: true, value: { rows: 0, sql: 's' } }, 0)).toBeUndefined();
    expect(judgeWidget(p, { ok: true, value: { rows: 0, sql: 's' } }, undefined)).toBeUndefined();
  });
});
