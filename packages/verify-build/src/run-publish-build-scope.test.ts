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
