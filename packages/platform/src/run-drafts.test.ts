import { buildGraph, collectStack, readSource } from '@bvl/metadata';
import { fixtureFile } from '@bvl/test-support';
import { describe, expect, it } from 'vitest';
import { useTestPlatform } from '../test/test-platform.ts';
import { BODY_CACHE } from './body-cache.ts';
import type { Platform } from './open-platform.ts';
import { discardDrafts, listDrafts, readOverlay, STAGE_BATCH, STAGE_BYTES, seedStreamStats, stageBatches, stageDrafts } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';
import { ScopeError } from './scope.ts';

let platform: Platform;
const made = useTestPlatform(
  (p) => {
    platform = p;
  },
  () => new Date('2026-03-15T10:00:00Z'),
);

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

  it('stages in statements of at most STAGE_BATCH rows and STAGE_BYTES of body text, a heavier body alone, in order', () => {
    const row = (n: number, i: number) => ({ i, body: 'x'.repeat(n) });
    const sizes = [10, STAGE_BYTES + 1, 10, STAGE_BYTES / 2, STAGE_BYTES / 2, 1, ...Array.from({ length: STAGE_BATCH + 5 }, () => 1)];
    const batches = [...stageBatches(sizes.map((n, i) => row(n, i)))];
    expect(batches.flat().map((r) => r.i)).toEqual(sizes.map((_, i) => i));
    for (const b of batches) {
      expect(b.length).toBeLessThanOrEqual(STAGE_BATCH);
      if (b.length > 1) expect(b.reduce((n, r) => n + r.body.length, 0)).toBeLessThanOrEqual(STAGE_BYTES);
    }
    // 10 | the heavy one alone | 10 + half | half + 1 + 1 … up to STAGE_BATCH rows | the rest.
    expect(batches.map((b) => b.length)).toEqual([1, 1, 2, STAGE_BATCH, sizes.length - 4 - STAGE_BATCH]);
  });

  it('stages seeds heavier together than one staging statement carries, and reads them back whole', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const records = (k: number) => Array.from({ length: 40_000 }, (_, i) => ({ code: `S${k}-${i}`, title: 'y'.repeat(60) }));
    const set = collectStack({
      objects: [{ name: 'heavy', fields: { code: { type: 'text' }, title: { type: 'text' } } }],
      data: [1, 2, 3].map((k) => ({ object: 'heavy', externalId: 'code', records: records(k) })),
    });
    expect(await stageDrafts(platform, scope, set)).toEqual({ staged: 4 });
    const overlay = await readOverlay(platform, scope);
    const seeds = overlay.drafts.artifacts.filter((a) => a.type === 'seed');
    expect(seeds.map((a) => (a.body as { records: unknown[] }).records.length)).toEqual([40_000, 40_000, 40_000]);
    expect(seeds.map((a) => (a.body as { records: Array<{ code: string }> }).records.at(-1)!.code).sort()).toEqual(['S1-39999', 'S2-39999', 'S3-39999']);
  });

  it('reads a body several rows share once: a republished seed and its published item hold one parsed value', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    // Large enough to be read in parts (over SEED_STREAM.bytes stored, compressed: the values vary), as a replay's body is; the
    // tenant's cached bodies are dropped before each read, so only the read itself can share it (this
    // body is under the cache's weight bound: 60,000 records past it made the test ten times slower).
    const keys = Array.from({ length: 19 }, (_, k) => `f${k}`);
    const fields = { code: { type: 'text' }, ...Object.fromEntries(keys.map((k) => [k, { type: 'number' }])) };
    const records = Array.from({ length: 6_000 }, (_, i) => ({
      code: `K${i}`,
      ...Object.fromEntries(keys.map((k, j) => [k, (i * 7919 + j * 104_729) % 1_000_003])),
    }));
    const stack = (rs: unknown[]) =>
      collectStack({ objects: [{ name: 'kv', fields }], data: [{ object: 'kv', externalId: 'code', env: ['prod'], records: rs }] }, { draft: true }); // not applied (dev): no rows to write
    const set = stack(records);
    await stageDrafts(platform, scope, set);
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    await stageDrafts(platform, scope, set);
    BODY_CACHE.of(scope.tenant).clear();
    const inParts = seedStreamStats.bodies;
    const overlay = await readOverlay(platform, scope);
    expect(seedStreamStats.bodies - inParts).toBe(1);
    const [published] = overlay.published.artifacts.filter((a) => a.type === 'seed');
    const [draft] = overlay.drafts.artifacts.filter((a) => a.type === 'seed');
    expect((draft!.body as { records: unknown[] }).records).toHaveLength(6_000);
    expect(draft!.body).toBe(published!.body);
    // A changed body is its own value.
    await stageDrafts(platform, scope, stack(records.slice(1)));
    BODY_CACHE.of(scope.tenant).clear();
    const changed = await readOverlay(platform, scope);
    const body = (a: { body: unknown }) => a.body as { records: unknown[] };
    expect(body(changed.drafts.artifacts.find((a) => a.type === 'seed')!).records).toHaveLength(5_999);
    expect(body(changed.published.artifacts.find((a) => a.type === 'seed')!).records).toHaveLength(6_000);
  });

  it('refuses a hostile tenant or package id before any SQL', async () => {
    await expect(stageDrafts(platform, { tenant: 'x"; drop schema bvl; --', package: 'p' }, [])).rejects.toThrow(ScopeError);
    await expect(listDrafts(platform, { tenant: 'ok', package: "p'; --" })).rejects.toThrow(/package/);
  });
});
