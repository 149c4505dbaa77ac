import { buildGraph, collectStack, readSource } from '@bvl/metadata';
import { fixtureFile } from '@bvl/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, tenants } from '../test/test-platform.ts';
import { BODY_CACHE } from './body-cache.ts';
import type { Platform } from './open-platform.ts';
import { discardDrafts, listDrafts, readOverlay, stageDrafts } from './run-drafts.ts';
import { ScopeError } from './scope.ts';

let platform: Platform;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => new Date('2026-03-15T10:00:00Z'));
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

describe('draft store', () => {
  it('stages a whole stack and reads it back as the same graph (views rebuilt from their expansion)', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const file = fixtureFile('field-service');
    const set = await readSource(file);
    expect(await stageDrafts(platform, scope, set)).toEqual({ staged: set.artifacts.length });
    const overlay = await readOverlay(platform, scope);
    expect(overlay.published.artifacts).toEqual([]);
    expect(overlay.drafts.artifacts).toHaveLength(set.artifacts.length);
    const original = buildGraph(set).graph;
    const stored = buildGraph(overlay.published, overlay.drafts);
    expect(stored.issues).toEqual([]);
    expect([...stored.graph.views.keys()].sort()).toEqual([...original.views.keys()].sort());
    for (const [name, view] of original.views) {
      const back = stored.graph.views.get(name)!;
      expect({ object: back.object, key: back.key, kind: back.kind, draft: back.draft }).toEqual({
        object: view.object,
        key: view.key,
        kind: view.kind,
        draft: true,
      });
      expect(back.list ?? back.form).toEqual(view.list ?? view.form);
    }
    expect(stored.graph.sourceOf('view', 'fs_job.board')?.file).toBe(file);
    expect(stored.graph.sourceOf('view', 'fs_technician.roster')?.file).toBe(file);
  });

  it('upserts one draft per slot, lists and discards them', async () => {
    const scope = { tenant: made.next(), package: 'p1' };
    const obj = (label: string) => ({ type: 'object' as const, name: 'a', body: { name: 'a', label, fields: {} }, source: { pointer: '' }, draft: true });
    await stageDrafts(platform, scope, [obj('one'), obj('two')]);
    await stageDrafts(platform, scope, [
      obj('three'),
      { type: 'dashboard', name: 'd', body: { name: 'd', widgets: [] }, source: { pointer: '' }, draft: true },
    ]);
    const list = await listDrafts(platform, scope);
    expect(list.map((d) => [d.type, d.name])).toEqual([
      ['dashboard', 'd'],
      ['object', 'a'],
    ]);
    expect((await readOverlay(platform, scope)).drafts.artifacts.find((a) => a.type === 'object')?.body).toMatchObject({ label: 'three' });
    expect(await discardDrafts(platform, scope, [{ type: 'dashboard', name: 'd' }])).toBe(1);
    expect(await discardDrafts(platform, scope)).toBe(1);
    expect(await listDrafts(platform, scope)).toEqual([]);
  });

  it('keeps packages apart: drafts of another package are not in this overlay', async () => {
    const tenant = made.next();
    const a = { type: 'object' as const, name: 'a', body: { name: 'a' }, source: { pointer: '' }, draft: true };
    await stageDrafts(platform, { tenant, package: 'one' }, [a]);
    await stageDrafts(platform, { tenant, package: 'two' }, [{ ...a, name: 'b', body: { name: 'b' } }]);
    expect((await readOverlay(platform, { tenant, package: 'one' })).drafts.artifacts.map((x) => x.name)).toEqual(['a']);
    expect((await readOverlay(platform, { tenant })).drafts.artifacts.map((x) => x.name)).toEqual(['a', 'b']);
  });

  it('reads each body once per process: a repeated read is served by content hash, a changed body is read anew', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const v1 = { objects: [{ name: 'note', label: 'One', fields: { title: { type: 'text' } } }] };
    await stageDrafts(platform, scope, collectStack(v1, { draft: true }));
    const first = await readOverlay(platform, scope);
    expect(BODY_CACHE.of(scope.tenant).size).toBe(1);
    const again = await readOverlay(platform, scope);
    expect(again.drafts.artifacts[0]!.body).toEqual(first.drafts.artifacts[0]!.body);
    await stageDrafts(platform, scope, collectStack({ objects: [{ ...v1.objects[0], label: 'Two' }] }, { draft: true }));
    expect((await readOverlay(platform, scope)).drafts.artifacts[0]!.body).toMatchObject({ label: 'Two' });
    // A cache emptied by another call while reading still yields every body.
    BODY_CACHE.of(scope.tenant).clear();
    expect((await readOverlay(platform, scope)).drafts.artifacts[0]!.body).toMatchObject({ label: 'Two' });
  });

  it('refuses a hostile tenant or package id before any SQL', async () => {
    await expect(stageDrafts(platform, { tenant: 'x"; drop schema bvl; --', package: 'p' }, [])).rejects.toThrow(ScopeError);
    await expect(listDrafts(platform, { tenant: 'ok', package: "p'; --" })).rejects.toThrow(/package/);
  });
});
