import { describe, expect, it } from 'vitest';
import { fakeEngine } from '../test/fake-engine.ts';
import { graphOf, SMALL } from '../test/graphs.ts';
import { type PreviousProbes, planCarry } from './plan-carry.ts';
import { runProbes } from './run-probes.ts';

// Issue 21: a republish probes what it changed and what reads it; what it left alone carries the
// previous publish's result, said so in the report (skipped, with the publish it comes from) and
// with that result's issues still reported.

// Two independent apps in one package: exp (SMALL) and inv, whose dashboard also reads exp through a lookup.
const TWO = {
  objects: [
    ...SMALL.objects,
    { name: 'inv', fields: { name: { type: 'text' }, exp: { type: 'lookup', reference: 'exp' } } },
    { name: 'tag', fields: { name: { type: 'text' } } },
  ],
  views: [
    ...SMALL.views,
    { list: { type: 'grid', data: { provider: 'object', object: 'inv' }, columns: ['name'] } },
    { list: { type: 'grid', data: { provider: 'object', object: 'tag' }, columns: ['name'] } },
  ],
  datasets: [...SMALL.datasets, { name: 'inv_metrics', object: 'inv', include: ['exp'], dimensions: [], measures: [{ name: 'n', aggregate: 'count' }] }],
  dashboards: [...SMALL.dashboards, { name: 'stock', label: 'Stock', widgets: [{ id: 'n', type: 'metric', dataset: 'inv_metrics', values: ['n'] }] }],
  data: [...SMALL.data, { object: 'tag', externalId: 'name', records: [{ name: 'x' }] }],
};
const graph = graphOf(TWO);
const names = (s: ReadonlySet<string>) => [...s].map((k) => k.replace('\u0000', '/')).sort();
const previous = (over: Partial<PreviousProbes> = {}): PreviousProbes => ({ publishId: 7, issues: [], skipped: [], unavailable: {}, ...over });

describe('planCarry', () => {
  it('nothing is carried without a previous result', () => {
    expect(planCarry({ graph, changed: [], seededObjects: new Set(), previous: undefined })).toBeUndefined();
  });

  it('a view changed: it is probed; everything that reads nothing changed is carried', () => {
    const c = planCarry({ graph, changed: [{ type: 'view', name: 'tag.default' }], seededObjects: new Set(), previous: previous() })!;
    expect(names(c.artifacts)).toEqual([
      'dashboard/spending',
      'dashboard/stock',
      'object/exp',
      'object/inv',
      'object/tag',
      'seed/exp',
      'seed/tag',
      'view/exp.default',
      'view/inv.default',
    ]);
  });

  it("an object whose table changed, or whose rows a seed wrote, is probed with what reads it, through lookups and a dataset's include", () => {
    const c = planCarry({ graph, changed: [{ type: 'object', name: 'exp' }], seededObjects: new Set(['tag']), previous: previous() })!;
    // inv's view reads exp through its lookup; stock's dataset includes exp.
    expect(names(c.artifacts)).toEqual(['object/inv']);
  });

  it('a dataset changed: the dashboards over it are probed', () => {
    const c = planCarry({ graph, changed: [{ type: 'dataset', name: 'exp_metrics' }], seededObjects: new Set(), previous: previous() })!;
    expect(names(c.artifacts).filter((n) => n.startsWith('dashboard/'))).toEqual(['dashboard/stock']);
  });

  it('what the previous result skipped, or a plane it could not probe, is probed; its issues about what is carried stand', () => {
    const issue = (type: string, name: string, code: string) => ({
      layer: 'runtime' as const,
      severity: 'error' as const,
      artifact: { type, name },
      code,
      message: 'm',
    });
    const c = planCarry({
      graph,
      changed: [],
      seededObjects: new Set(),
      previous: previous({
        skipped: [{ plane: 'views', artifact: { type: 'view', name: 'inv.default' }, reason: 'budget spent' }],
        unavailable: { widgets: 'no dataset engine' },
        issues: [issue('view', 'exp.default', 'view_read_failed'), issue('view', 'inv.default', 'view_read_failed'), issue('seed', 'gone', 'seed_not_applied')],
      }),
    })!;
    expect(names(c.artifacts)).toEqual(['object/exp', 'object/inv', 'object/tag', 'seed/exp', 'seed/tag', 'view/exp.default', 'view/tag.default']);
    expect(c.issues.map((i) => i.artifact.name)).toEqual(['exp.default']);
  });
});

describe('runProbes with what a republish carries', () => {
  it('runs only the probes not carried, reports the rest as skipped with their publish, and keeps the carried issues', async () => {
    const engine = fakeEngine({ rows: { exp: 3, inv: 2, tag: 1 } });
    const full = await runProbes({ engine, graph });
    const all = engine.calls.length;
    const carried = planCarry({
      graph,
      changed: [{ type: 'view', name: 'tag.default' }],
      seededObjects: new Set(),
      previous: previous({
        issues: [
          {
            layer: 'runtime',
            severity: 'error',
            artifact: { type: 'dashboard', name: 'stock' },
            ref: { type: 'dashboard', name: 'stock', member: 'n' },
            code: 'empty_query',
            message: 'm',
          },
        ],
      }),
    })!;
    const again = fakeEngine({ rows: { exp: 3, inv: 2, tag: 1 } });
    const report = await runProbes({ engine: again, graph, carried });
    expect(again.calls).toEqual(['view tag']);
    expect(all).toBeGreaterThan(6);
    expect(report.checked).toEqual({ seeds: 0, views: 1, widgets: 0, objects: 0 });
    expect(report.total).toEqual(full.total);
    expect(report.skipped.every((s) => s.carriedFrom === 7 && s.reason.startsWith('unchanged since publish #7'))).toBe(true);
    expect(report.skipped.map((s) => `${s.plane}:${s.artifact.name}${s.member ? `.${s.member}` : ''}`)).toEqual([
      'seeds:exp',
      'seeds:tag',
      'views:exp.default',
      'views:inv.default',
      'widgets:spending.by_status',
      'widgets:spending.total',
      'widgets:stock.n',
      'objects:exp',
      'objects:inv',
      'objects:tag',
    ]);
    expect(report.issues.map((i) => [i.code, i.artifact.name])).toEqual([['empty_query', 'stock']]);
  });
});
