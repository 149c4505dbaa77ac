import { collectStack } from '@bvl/metadata';
import { type Platform, stageDrafts, tenantSchema } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishBuild } from './run-publish-build.ts';

let platform: Platform;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => new Date('2026-03-15T10:00:00Z'));
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

const pkg = (name: string) =>
  collectStack(
    {
      objects: [{ name, fields: { name: { type: 'text' } } }],
      views: [{ list: { type: 'grid', data: { provider: 'object', object: name }, columns: ['name'] } }],
      data: [{ object: name, externalId: 'name', records: [{ name: `${name}-1` }] }],
    },
    { draft: true },
  );

describe('publishBuild probes the package it publishes', () => {
  it("another package's emptied table is not this publish's failure, and this package's own is", async () => {
    const tenant = made.next();
    await stageDrafts(platform, { tenant, package: 'inv' }, pkg('inv'));
    expect((await publishBuild(platform, { tenant, package: 'inv' })).ok).toBe(true);
    // Someone empties package inv's table.
    await platform.db
      .withSchema(tenantSchema(tenant))
      .deleteFrom('inv' as never)
      .execute();
    await stageDrafts(platform, { tenant, package: 'crm' }, pkg('crm'));
    const crm = await publishBuild(platform, { tenant, package: 'crm' });
    expect(crm).toMatchObject({ outcome: 'published', ok: true, issues: [] });
    expect(crm.probes).toMatchObject({ checked: { seeds: 1, views: 1, widgets: 0, objects: 1 }, total: { seeds: 1, views: 1, widgets: 0, objects: 1 } });
    // Republishing inv itself probes inv: its seed re-applies, so it holds again.
    await stageDrafts(platform, { tenant, package: 'inv' }, pkg('inv'));
    const inv = await publishBuild(platform, { tenant, package: 'inv' });
    expect(inv).toMatchObject({ outcome: 'published', ok: true, probes: { checked: { seeds: 1, objects: 1 } } });
  });
});

// Issue 21: a republish probes what it changed and what reads it; the rest carries the previous
// publish's result (reported as skipped, carriedFrom that publish), issues included.
const app = (name: string, opts: { columns?: string[]; extraField?: boolean } = {}) => ({
  objects: [
    { name, fields: { name: { type: 'text' }, status: { type: 'select', options: ['open', 'done'] }, ...(opts.extraField ? { note: { type: 'text' } } : {}) } },
  ],
  views: [{ list: { type: 'grid', data: { provider: 'object', object: name }, columns: opts.columns ?? ['name'] } }],
  datasets: [{ name: `${name}_m`, object: name, dimensions: [{ name: 'status', field: 'status' }], measures: [{ name: 'n', aggregate: 'count' }] }],
  dashboards: [
    {
      name: `${name}_d`,
      label: 'D',
      widgets: [
        { id: 'n', type: 'metric', dataset: `${name}_m`, values: ['n'] },
        // Matches no row: empty_query.
        { id: 'gone', type: 'bar', dataset: `${name}_m`, dimensions: ['status'], values: ['n'], filter: { status: 'done' } },
      ],
    },
  ],
  data: [{ object: name, externalId: 'name', records: [{ name: `${name}-1`, status: 'open' }] }],
});
const both = (a: object, b: object) => {
  const x = a as Record<string, unknown[]>;
  const y = b as Record<string, unknown[]>;
  return collectStack(Object.fromEntries(Object.keys(x).map((k) => [k, [...x[k]!, ...y[k]!]])), { draft: true });
};

describe('a republish probes what it changed', () => {
  it('an unchanged app carries its result (issues kept, said so); a changed view or object is probed again', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await stageDrafts(platform, scope, both(app('a'), app('b')));
    const first = await publishBuild(platform, scope);
    expect(first.probes).toMatchObject({ checked: { seeds: 2, views: 2, widgets: 4, objects: 2 }, skipped: [] });
    const empty = first.issues.filter((i) => i.code === 'empty_query').map((i) => `${i.artifact.name}.${i.ref?.member}`);
    expect(empty).toEqual(['a_d.gone', 'b_d.gone']);

    // Only b's view changes: it alone is read again; a's and b's other probes carry publish #1's result.
    await stageDrafts(platform, scope, both(app('a'), app('b', { columns: ['name', 'status'] })));
    const second = await publishBuild(platform, scope);
    expect(second.probes).toMatchObject({ checked: { seeds: 0, views: 1, widgets: 0, objects: 0 }, total: first.probes!.total });
    expect(second.probes!.skipped).toHaveLength(2 + 1 + 4 + 2);
    expect(second.probes!.skipped.every((s) => s.carriedFrom === first.publishId && s.reason.startsWith(`unchanged since publish #${first.publishId}`))).toBe(
      true,
    );
    expect(second.issues.filter((i) => i.code === 'empty_query').map((i) => `${i.artifact.name}.${i.ref?.member}`)).toEqual(empty);
    expect(second.ok).toBe(false);
    // The card counts carried widgets with their carried result: 2 of 4 return data, as before.
    expect(second.card?.layers.widgets.label).toBe('2/4 widgets return data');
    expect(first.card?.layers.widgets.label).toBe('2/4 widgets return data');

    // a's object changes (a new column): a's seed, view, widgets and count run again; b's carry.
    await stageDrafts(platform, scope, both(app('a', { extraField: true }), app('b', { columns: ['name', 'status'] })));
    const third = await publishBuild(platform, scope);
    expect(third.probes).toMatchObject({ checked: { seeds: 1, views: 1, widgets: 2, objects: 1 } });
    expect(new Set(third.probes!.skipped.map((s) => s.carriedFrom))).toEqual(new Set([second.publishId]));
    expect(third.issues.filter((i) => i.code === 'empty_query').map((i) => `${i.artifact.name}.${i.ref?.member}`)).toEqual(empty);

    // Rows a seed writes are a change: emptied by hand, b's seed writes its row again on an
    // otherwise unchanged republish, and b is probed; a's rows are left as they were, and a carries.
    await platform.db
      .withSchema(tenantSchema(scope.tenant))
      .deleteFrom('b' as never)
      .execute();
    await stageDrafts(platform, scope, both(app('a', { extraField: true }), app('b', { columns: ['name', 'status'] })));
    const fourth = await publishBuild(platform, scope);
    expect(fourth).toMatchObject({ outcome: 'published', probes: { checked: { seeds: 1, views: 1, widgets: 2, objects: 1 } } });
  });
});
