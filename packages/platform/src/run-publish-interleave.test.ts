import { collectStack } from '@bvl/metadata';
import { verify } from '@bvl/verify';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENGINE, useTestPlatform } from '../test/test-platform.ts';
import type { BvlDatabase, PlatformContext } from './database.ts';
import type { Platform } from './open-platform.ts';
import { overlayOf } from './overlay-of.ts';
import { discardDrafts, readOverlayRows, stageDrafts, stageTombstones } from './run-drafts.ts';
import { type PublishPoint, type PublishResult, publishPackage } from './run-publish.ts';
import { contentHash, toStoredArtifact } from './stored-artifact.ts';

// A publish promotes exactly the draft set it verified; what is staged, replaced, retired or
// discarded while it runs stays for the next round, never promoted unchecked, never lost.
//
// On PostgreSQL the writes in the middle come from another connection and commit while the publish
// runs (the real race). PGlite has one connection, so nothing can commit in the middle of a
// publish: there the writes go through the publish's own transaction, which is what a READ
// COMMITTED statement sees of a row committed since the previous one. Writes that must wait for
// the publish (a draft it is promoting) are started and given time to land or block.

let platform: Platform;
const made = useTestPlatform((p) => {
  platform = p;
});

const concurrent = ENGINE === 'postgres';
/** Where a write in the middle of a publish goes: another connection (PostgreSQL), or the publish's transaction (PGlite). */
const writer = (trx: Kysely<BvlDatabase>): PlatformContext => (concurrent ? platform : { ...platform, db: trx });
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ACCT = { name: 'acct', fields: { name: { type: 'text' } } };
const GOOD = { name: 'good', fields: { name: { type: 'text' }, acct: { type: 'lookup', reference: 'acct' } } };
const GOOD_V2 = { name: 'good', fields: { name: { type: 'text' }, acct: { type: 'lookup', reference: 'acct' }, note: { type: 'text' } } };
/** An object the gate refuses: its lookup points at nothing. */
const BAD = { name: 'bad', fields: { name: { type: 'text' }, to: { type: 'lookup', reference: 'nowhere' } } };

const draftsOf = (stack: object) => collectStack(stack, { draft: true });
const hashOf = (stack: object) => contentHash(toStoredArtifact(draftsOf(stack).artifacts[0]!).body);

/** A package that published `acct` and has `good` staged. */
async function staged() {
  const scope = { tenant: made.next('il'), package: 'app' };
  await stageDrafts(platform, scope, draftsOf({ objects: [ACCT] }));
  expect((await publishPackage(platform, scope)).outcome).toBe('published');
  await stageDrafts(platform, scope, draftsOf({ objects: [GOOD] }));
  return scope;
}

/** Every row of a slot: its state and content hash. */
async function slot(tenant: string, type: string, name: string) {
  const rows = await platform.db
    .selectFrom('bvl.metadata_items')
    .select(['state', 'content_hash', 'tombstone'])
    .where('tenant_id', '=', tenant)
    .where('type', '=', type)
    .where('name', '=', name)
    .orderBy('state')
    .execute();
  return rows.map((r) => [r.state, r.tombstone ? 'tombstone' : r.content_hash]);
}

/** L1+L2 errors of what the tenant publishes now (drafts aside): a published state the gate would refuse was promoted unchecked. */
async function publishedErrors(tenant: string): Promise<string[]> {
  const rows = (await readOverlayRows(platform.db, tenant, undefined)).filter((r) => r.state === 'active');
  const overlay = overlayOf(rows, undefined);
  return verify(overlay.published, overlay.drafts)
    .issues.filter((i) => i.severity === 'error')
    .map((i) => `${i.code} ${i.artifact.type} ${i.artifact.name}`);
}

const publishAt = (scope: { tenant: string; package: string }, at: PublishPoint, act: (trx: Kysely<BvlDatabase>) => Promise<void>): Promise<PublishResult> =>
  publishPackage(platform, scope, { interleave: async (point, trx) => (point === at ? act(trx) : undefined) });

const items = (r: PublishResult) => (r.outcome === 'published' ? r.published.map((p) => `${p.type} ${p.name}`) : r);

describe(`a publish promotes exactly the draft set it verified (${ENGINE})`, () => {
  for (const at of ['gated', 'promoted'] as const) {
    it(`a new draft staged once the publish is ${at} stays a draft: not promoted unchecked, not deleted`, async () => {
      const scope = await staged();
      const r = await publishAt(scope, at, async (trx) => {
        await stageDrafts(writer(trx), scope, draftsOf({ objects: [BAD] }));
      });
      expect(items(r)).toEqual(['object good']);
      expect(await slot(scope.tenant, 'object', 'bad')).toEqual([['draft', hashOf({ objects: [BAD] })]]);
      expect(await publishedErrors(scope.tenant)).toEqual([]);
      // The next round checks it: the gate refuses it.
      const next = await publishPackage(platform, scope);
      expect(next.outcome === 'refused' && next.issues.map((i) => `${i.code} ${i.artifact.name}`)).toEqual(['dangling_reference bad']);
    });
  }

  it('a tombstone staged in the middle stays a draft: the artifact is not retired unchecked, the tombstone is not lost', async () => {
    const scope = await staged();
    const r = await publishAt(scope, 'gated', async (trx) => {
      await stageTombstones(writer(trx), scope, [{ type: 'object', name: 'acct' }]);
    });
    expect(items(r)).toEqual(['object good']);
    expect(r.outcome === 'published' && r.retired).toEqual([]);
    expect(await slot(scope.tenant, 'object', 'acct')).toEqual([
      ['active', hashOf({ objects: [ACCT] })],
      ['draft', 'tombstone'],
    ]);
    expect(await publishedErrors(scope.tenant)).toEqual([]);
  });

  it('a view container restaged in the middle: the views verified are published (the container retires the rest), the new view stays a draft', async () => {
    const scope = await staged();
    const grid = (columns: string[]) => ({ type: 'grid', data: { provider: 'object', object: 'acct' }, columns });
    await stageDrafts(platform, scope, draftsOf({ views: [{ list: grid(['name']), listViews: { mine: grid(['name']) } }] }));
    expect(items(await publishPackage(platform, scope))).toEqual(['object good', 'view acct.default', 'view acct.mine']);
    // The container is redrafted without `mine`: publishing it retires acct.mine.
    await stageDrafts(platform, scope, draftsOf({ views: [{ list: grid(['name', 'id']) }] }));
    const r = await publishAt(scope, 'gated', async (trx) => {
      await stageDrafts(writer(trx), scope, draftsOf({ views: [{ object: 'acct', listViews: { fresh: grid(['nope']) } }] }));
    });
    expect(items(r)).toEqual(['view acct.default']);
    expect(await slot(scope.tenant, 'view', 'acct.mine')).toEqual([]);
    expect(await slot(scope.tenant, 'view', 'acct.fresh')).toEqual([['draft', expect.any(String)]]);
    expect(await publishedErrors(scope.tenant)).toEqual([]);
  });
});

describe.runIf(concurrent)('writes to a draft the publish is promoting (PostgreSQL, another connection)', () => {
  it('a draft replaced in the middle: the verified version is published, the replacement stays a draft and its stage succeeds', async () => {
    const scope = await staged();
    let replaced: Promise<unknown> | undefined;
    const r = await publishAt(scope, 'gated', async () => {
      replaced = stageDrafts(platform, scope, draftsOf({ objects: [GOOD_V2] }));
      // It either lands now (nothing holds the row) or waits for this publish (the row is being promoted).
      await Promise.race([replaced, settle(300)]);
    });
    await expect(replaced).resolves.toEqual({ staged: 1 });
    expect(items(r)).toEqual(['object good']);
    expect(await slot(scope.tenant, 'object', 'good')).toEqual([
      ['active', hashOf({ objects: [GOOD] })],
      ['draft', hashOf({ objects: [GOOD_V2] })],
    ]);
  });

  it('a discard in the middle: the verified drafts are published, and the discard finds nothing left of them', async () => {
    const scope = await staged();
    let discarded: Promise<number> | undefined;
    const r = await publishAt(scope, 'gated', async () => {
      discarded = discardDrafts(platform, scope);
      await Promise.race([discarded, settle(300)]);
    });
    expect(items(r)).toEqual(['object good']);
    expect(await discarded).toBe(0);
    expect(await slot(scope.tenant, 'object', 'good')).toEqual([['active', hashOf({ objects: [GOOD] })]]);
  });
});

/** Trials of the real race below; the README and the issue's note report this count. */
const STAGE_DURING_PUBLISH_TRIALS = 20;

describe(`stage during publish, ${STAGE_DURING_PUBLISH_TRIALS} trials without hooks (${ENGINE})`, () => {
  // No hook: a publish runs while, 0–35 ms after it starts, three drafts are staged from other
  // connections (PostgreSQL; on PGlite they queue behind it): a new object the gate refuses, a
  // replacement of the draft being published that the gate refuses too, and a valid new object.
  // Whatever the timing: nothing the gate would refuse is ever published, and every staged draft
  // (its last version) is either published or still a draft.
  const BAD_V2 = { name: 'good', fields: { name: { type: 'text' }, acct: { type: 'lookup', reference: 'nowhere' } } };
  const EXTRA = { name: 'extra', fields: { name: { type: 'text' } } };

  it('0 unchecked promotions, 0 lost drafts', async () => {
    const unchecked: string[] = [];
    const lost: string[] = [];
    const outcomes: string[] = [];
    let during = 0;
    for (let trial = 0; trial < STAGE_DURING_PUBLISH_TRIALS; trial++) {
      const scope = await staged();
      // A warm publish here takes ~15–40 ms: the delays cover it, so the stages land before, during and after.
      const delay = Math.round((trial * 35) / (STAGE_DURING_PUBLISH_TRIALS - 1));
      const t0 = performance.now();
      let publishedAt = 0;
      const publishing = publishPackage(platform, scope).finally(() => {
        publishedAt = performance.now() - t0;
      });
      await settle(delay);
      const stagedAt: number[] = [];
      const stages = await Promise.all(
        [BAD, BAD_V2, EXTRA].map((o) =>
          stageDrafts(platform, scope, draftsOf({ objects: [o] })).finally(() => stagedAt.push(Math.round(performance.now() - t0))),
        ),
      );
      expect(stages).toEqual([{ staged: 1 }, { staged: 1 }, { staged: 1 }]);
      const r = await publishing;
      outcomes.push(r.outcome === 'published' ? r.published.map((p) => p.name).join('+') : r.outcome);
      // A stage answered while the publish ran: the interleaving this test is about.
      if (stagedAt.some((t) => t < publishedAt)) during++;
      for (const e of await publishedErrors(scope.tenant)) unchecked.push(`trial ${trial} (${delay} ms): ${e}`);
      for (const [name, stack] of [
        ['bad', { objects: [BAD] }],
        ['good', { objects: [BAD_V2] }],
        ['extra', { objects: [EXTRA] }],
      ] as const) {
        const rows = await slot(scope.tenant, 'object', name);
        if (!rows.some(([, hash]) => hash === hashOf(stack))) lost.push(`trial ${trial} (${delay} ms): ${name} ${JSON.stringify(rows)}`);
      }
    }
    if (process.env.BVL_TRIALS_REPORT)
      console.log(`${ENGINE}: ${during} of ${STAGE_DURING_PUBLISH_TRIALS} trials staged while the publish ran; outcomes ${outcomes.join(' ')}`);
    expect({ unchecked, lost }).toEqual({ unchecked: [], lost: [] });
    // The trials did race: some publishes read the drafts before the stages, some after.
    expect(outcomes.filter((o) => o !== 'good' && o !== 'refused' && o !== 'extra+good')).toEqual([]);
  }, 120_000);
});
