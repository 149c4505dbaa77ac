import { describe, expect, it } from 'vitest';
import { fakeEngine } from '../test/fake-engine.ts';
import { fixture, graphOf, SMALL } from '../test/graphs.ts';
import { runProbes } from './run-probes.ts';

const small = graphOf(SMALL);

describe('runProbes', () => {
  it('passes a healthy app and counts every plane', async () => {
    const report = await runProbes({ engine: fakeEngine({ rows: { exp: 3 } }), graph: small });
    expect(report).toEqual({
      issues: [],
      checked: { seeds: 1, views: 1, widgets: 2, objects: 1 },
      total: { seeds: 1, views: 1, widgets: 2, objects: 1 },
      skipped: [],
      unavailable: {},
    });
  });

  it('finds incidents #3–#5: a seed whose rows never landed, a widget that renders empty, a view whose read fails', async () => {
    const engine = fakeEngine({
      rows: { exp: 0 },
      readView: () => ({ ok: false, error: 'column "amount" does not exist' }),
      runDataset: (_d, s) => (s.dimensions?.length ? { ok: true, value: { rows: 0, sql: 'select …' } } : { ok: true, value: { rows: 1, sql: 'select …' } }),
    });
    const seedApplied = {
      errors: [{ seed: 'exp', object: 'exp', recordIndex: 1, field: 'amount', message: 'row not written: invalid input syntax for type numeric: "abc"' }],
    };
    const report = await runProbes({ engine, graph: small, seedApplied });
    expect(report.issues.map((i) => [i.code, i.artifact.name, i.ref?.member ?? ''])).toEqual([
      ['seed_not_applied', 'exp', ''],
      ['view_read_failed', 'exp.default', ''],
    ]);
    expect(report.issues[0]!.message).toMatch(/record 1 \(field "amount"\): row not written: invalid input syntax for type numeric: "abc"/);
    // The same widget on a populated object is empty_query.
    const populated = await runProbes({
      engine: fakeEngine({ rows: { exp: 3 }, runDataset: (_d, s) => ({ ok: true, value: { rows: s.dimensions?.length ? 0 : 1, sql: 'select …' } }) }),
      graph: small,
    });
    expect(populated.issues.map((i) => [i.code, i.ref?.member])).toEqual([['empty_query', 'by_status']]);
  });

  it('tells a plane that found nothing from a plane that probed nothing', async () => {
    const noDashboards = await runProbes({ engine: fakeEngine({ rows: { exp: 3 } }), graph: graphOf({ ...SMALL, dashboards: [] }) });
    expect(noDashboards).toMatchObject({ checked: { widgets: 0 }, total: { widgets: 0 }, unavailable: {}, issues: [] });

    const tour = fixture('field-service');
    const rows = Object.fromEntries([...tour.objects.keys()].map((o) => [o, 1000]));
    const noDatasets = await runProbes({ engine: fakeEngine({ rows, runDataset: null }), graph: tour });
    expect(noDatasets.checked.widgets).toBe(0);
    expect(noDatasets.total.widgets).toBe(26);
    expect(noDatasets.unavailable).toEqual({ widgets: 'the runtime has no dataset engine' });
    expect(noDatasets.issues).toEqual([
      {
        layer: 'runtime',
        severity: 'warning',
        code: 'probes_unavailable',
        artifact: { type: 'probe', name: 'widgets' },
        message: 'The widgets plane was not probed: the runtime has no dataset engine. Its artifacts are unverified at runtime, not known to work.',
        fix: 'Probe with a runtime that implements this plane, or verify these artifacts another way.',
      },
    ]);
    expect(noDatasets.skipped.filter((s) => s.plane === 'widgets')).toHaveLength(26);
    expect(noDatasets.checked).toMatchObject({ seeds: 8, views: 27 });
  });

  it('never throws: an engine that crashes becomes an issue', async () => {
    const engine = fakeEngine({ rows: { exp: 3 } });
    engine.readView = () => Promise.reject(new Error('socket hang up'));
    engine.runDataset = () => {
      throw new TypeError('boom');
    };
    const report = await runProbes({ engine, graph: small });
    expect(report.issues.map((i) => [i.code, i.message.match(/the probe crashed: [a-z ]+/)?.[0]])).toEqual([
      ['widget_query_failed', 'the probe crashed: boom'],
      ['widget_query_failed', 'the probe crashed: boom'],
      ['view_read_failed', 'the probe crashed: socket hang up'],
    ]);
  });

  it('keeps at most `concurrency` queries in flight', async () => {
    const tour = fixture('field-service');
    const engine = fakeEngine({ rows: {}, delayMs: 2 });
    const report = await runProbes({ engine, graph: tour, concurrency: 3 });
    expect(engine.maxInFlight()).toBe(3);
    expect(engine.calls).toHaveLength(8 + 27 + 26);
    expect(report.checked).toEqual({ seeds: 8, views: 27, widgets: 26, objects: 8 });
  });

  it('stops at the probe budget and says which artifacts it skipped', async () => {
    const report = await runProbes({ engine: fakeEngine({ rows: { exp: 3 } }), graph: small, maxProbes: 2 });
    expect(report.checked).toEqual({ seeds: 1, views: 1, widgets: 0, objects: 1 });
    expect(report.skipped.map((s) => [s.plane, s.member, s.reason])).toEqual([
      ['widgets', 'by_status', "the run's budget of 2 probe queries was spent"],
      ['widgets', 'total', "the run's budget of 2 probe queries was spent"],
    ]);
  });

  it('says once when objects no seed speaks for cannot be counted', async () => {
    const graph = graphOf({
      objects: [
        { name: 'a', fields: {} },
        { name: 'b', fields: {} },
      ],
    });
    const report = await runProbes({
      engine: fakeEngine({ rows: { a: new Error('relation "t.a" does not exist'), b: new Error('relation "t.b" does not exist') } }),
      graph,
    });
    expect(report.issues).toHaveLength(1);
    expect(report.issues[0]).toMatchObject({
      code: 'probes_unavailable',
      severity: 'warning',
      artifact: { name: 'objects' },
      message: expect.stringMatching(/2 objects could not be counted: "a" \(relation "t.a" does not exist\), "b"/),
    });
  });

  it('leaves seeds that were not applied for this environment unprobed', async () => {
    const graph = graphOf({ ...SMALL, data: [{ ...SMALL.data[0], env: ['prod'] }] });
    const report = await runProbes({ engine: fakeEngine({ rows: { exp: 0 } }), graph, env: 'dev' });
    expect(report.issues).toEqual([]);
    expect(report).toMatchObject({
      checked: { seeds: 0 },
      total: { seeds: 1 },
      skipped: [{ plane: 'seeds', reason: 'the seed\'s env (prod) does not include "dev"' }],
    });
  });
});
