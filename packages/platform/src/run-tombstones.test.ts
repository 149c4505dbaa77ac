import { collectStack } from '@bvl/metadata';
import { verify } from '@bvl/verify';
import { describe, expect, it } from 'vitest';
import { useTestPlatform } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { readExistingSchema } from './run-ddl.ts';
import { listDrafts, readOverlay, stageDrafts, stageTombstones } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';
import { ScopeError } from './scope.ts';

let platform: Platform;
const made = useTestPlatform(
  (p) => {
    platform = p;
  },
  () => new Date('2026-03-15T10:00:00Z'),
);

const APP = {
  objects: [
    { name: 'note', fields: { title: { type: 'text' }, tag: { type: 'lookup', reference: 'tag' } } },
    { name: 'tag', fields: { name: { type: 'text' } } },
  ],
  views: [{ list: { type: 'grid', data: { provider: 'object', object: 'tag' }, columns: ['name'] } }],
  data: [{ object: 'tag', externalId: 'name', records: [{ name: 'red' }, { name: 'blue' }] }],
};

async function published(pkg = 'app') {
  const scope = { tenant: made.next(), package: pkg };
  await stageDrafts(platform, scope, collectStack(APP, { draft: true }));
  expect((await publishPackage(platform, scope)).outcome).toBe('published');
  return scope;
}
/** The tenant's object tables (platform tables such as sys_user aside). */
const tables = async (tenant: string) =>
  [...(await readExistingSchema(platform.db, tenantSchema(tenant))).tables.keys()].filter((t) => !t.startsWith('sys_')).sort();

describe('tombstones', () => {
  it('refuse to retire what the package does not publish, staging nothing', async () => {
    const scope = await published();
    await expect(stageTombstones(platform, scope, [{ type: 'dashboard', name: 'nope' }])).rejects.toThrow(ScopeError);
    await expect(stageTombstones(platform, scope, [{ type: 'dashboard', name: 'nope' }])).rejects.toThrow(/nothing to retire: no dashboard "nope"/);
    await expect(stageTombstones(platform, { ...scope, package: 'other' }, [{ type: 'object', name: 'tag' }])).rejects.toThrow(/published by package "app"/);
    expect(await listDrafts(platform, scope)).toEqual([]);
  });

  it('leave the artifact out of the overlay, so references to it dangle and the gate refuses', async () => {
    const scope = await published();
    await stageTombstones(platform, scope, [{ type: 'object', name: 'tag' }]);
    expect((await listDrafts(platform, scope)).map((d) => [d.type, d.name, d.tombstone])).toEqual([['object', 'tag', true]]);
    const overlay = await readOverlay(platform, scope);
    expect(overlay.retired).toEqual([{ type: 'object', name: 'tag' }]);
    const v = verify(overlay.published, overlay.drafts);
    expect(v.issues.filter((i) => i.severity === 'error').map((i) => [i.code, i.artifact.name])).toEqual([
      ['dangling_reference', 'note'],
      ['dangling_object', 'tag'],
      ['dangling_object', 'tag.default'],
    ]);
    const r = await publishPackage(platform, scope);
    expect(r.outcome).toBe('refused');
    expect(await tables(scope.tenant)).toEqual(['note', 'tag']);
  });

  it('retire metadata on publish and keep the table and rows unless dropData is given', async () => {
    const scope = await published();
    await stageDrafts(platform, scope, collectStack({ objects: [{ name: 'note', fields: { title: { type: 'text' } } }] }, { draft: true }));
    await stageTombstones(platform, scope, [
      { type: 'view', name: 'tag.default' },
      { type: 'seed', name: 'tag' },
      { type: 'object', name: 'tag' },
    ]);
    const kept = await publishPackage(platform, scope);
    expect(kept.outcome).toBe('published');
    if (kept.outcome !== 'published') return;
    expect(kept.retired).toEqual([
      { type: 'object', name: 'tag', data: 'kept' },
      { type: 'seed', name: 'tag', data: 'kept' },
      { type: 'view', name: 'tag.default', data: 'none' },
    ]);
    expect(await tables(scope.tenant)).toEqual(['note', 'tag']);
    const overlay = await readOverlay(platform, scope);
    expect(overlay.published.artifacts.map((a) => `${a.type}/${a.name}`).sort()).toEqual(['object/note']);
  });

  it('drop a retired object table and delete a retired seed rows with dropData', async () => {
    const seedOnly = await published();
    await stageTombstones(platform, seedOnly, [{ type: 'seed', name: 'tag' }]);
    const r1 = await publishPackage(platform, seedOnly, { dropData: true });
    expect(r1.outcome === 'published' && r1.retired).toEqual([{ type: 'seed', name: 'tag', data: { deleted: 2 } }]);
    const left = await platform.db
      .withSchema(tenantSchema(seedOnly.tenant))
      .selectFrom('tag' as never)
      .selectAll()
      .execute();
    expect(left).toEqual([]);

    const scope = await published();
    await stageDrafts(platform, scope, collectStack({ objects: [{ name: 'note', fields: { title: { type: 'text' } } }] }, { draft: true }));
    await stageTombstones(platform, scope, [
      { type: 'view', name: 'tag.default' },
      { type: 'seed', name: 'tag' },
      { type: 'object', name: 'tag' },
    ]);
    const r2 = await publishPackage(platform, scope, { dropData: true });
    expect(r2.outcome).toBe('published');
    expect(await tables(scope.tenant)).toEqual(['note']);
  });

  it('a later stage of the same slot replaces the tombstone', async () => {
    const scope = await published();
    await stageTombstones(platform, scope, [{ type: 'object', name: 'tag' }]);
    await stageDrafts(platform, scope, collectStack({ objects: [APP.objects[1]] }, { draft: true }));
    expect((await listDrafts(platform, scope)).map((d) => d.tombstone)).toEqual([false]);
    expect((await readOverlay(platform, scope)).retired).toEqual([]);
  });
});
