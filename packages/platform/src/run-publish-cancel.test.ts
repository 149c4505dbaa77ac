import { setTimeout as sleep } from 'node:timers/promises';
import { collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENGINE, useTestPlatform } from '../test/test-platform.ts';
import type { Platform } from './open-platform.ts';
import { watchAbort } from './run-cancel.ts';
import { listDrafts, stageDrafts } from './run-drafts.ts';
import { takeAdvisoryLock, tenantLockKey, withPackageLock } from './run-package-lock.ts';
import { type PublishResult, publishPackage } from './run-publish.ts';

// A publish past its caller's time bound is cancelled before it commits, and says that nothing
// was published; a last check before the commit can veto it.

let platform: Platform;
const made = useTestPlatform((p) => {
  platform = p;
});

const APP = { objects: [{ name: 'note', fields: { name: { type: 'text' } } }], data: [{ object: 'note', externalId: 'name', records: [{ name: 'n1' }] }] };

async function staged() {
  const scope = { tenant: made.next('cx'), package: 'app' };
  await stageDrafts(platform, scope, collectStack(APP, { draft: true }));
  return scope;
}
const active = (tenant: string) =>
  platform.db.selectFrom('bvl.metadata_items').select(['type', 'name']).where('tenant_id', '=', tenant).where('state', '=', 'active').execute();
const cancelled = (r: PublishResult) => (r.outcome === 'failed' ? { cancelled: r.cancelled, error: r.error } : r);
/** Runs `fn` while another session holds the advisory lock `key` (a tenant's: another publish in progress). */
async function holding(key: string, fn: () => Promise<void>): Promise<void> {
  await platform.db.connection().execute(async (holder) => {
    await sql`select pg_advisory_lock(hashtextextended(${key}, 0))`.execute(holder);
    try {
      await fn();
    } finally {
      await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(holder);
    }
  });
}

describe(`publishPackage's signal and beforeCommit (${ENGINE})`, () => {
  it('an abort inside the publish rolls it back: failed, cancelled, nothing published, the drafts kept', async () => {
    const scope = await staged();
    const bound = new AbortController();
    const r = await publishPackage(platform, scope, {
      signal: bound.signal,
      interleave: async (point) => {
        if (point === 'gated') bound.abort(new Error('the request took longer than 120 s'));
      },
    });
    expect(cancelled(r)).toEqual({
      cancelled: true,
      error: 'nothing was published: the publish was cancelled before it committed (the request took longer than 120 s)',
    });
    expect(await active(scope.tenant)).toEqual([]);
    expect((await listDrafts(platform, scope)).map((d) => `${d.type} ${d.name}`)).toEqual(['object note', 'seed note']);
    // The next publish, not cancelled, publishes them.
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
  });

  it('a signal aborted before the call publishes nothing', async () => {
    const scope = await staged();
    const r = await publishPackage(platform, scope, { signal: AbortSignal.abort() });
    expect(r.outcome === 'failed' && [r.cancelled, r.error.startsWith('nothing was published: the publish was cancelled before it committed')]).toEqual([
      true,
      true,
    ]);
    expect(await active(scope.tenant)).toEqual([]);
  });

  it('a signal that never aborts changes nothing', async () => {
    const scope = await staged();
    const r = await publishPackage(platform, scope, { signal: new AbortController().signal });
    expect(r.outcome === 'published' && r.seedApplied.inserted).toBe(1);
  });

  it('what beforeCommit throws rolls the publish back and reaches the caller as is', async () => {
    const scope = await staged();
    const veto = new Error('the build session was cancelled');
    await expect(
      publishPackage(platform, scope, {
        beforeCommit: async () => {
          throw veto;
        },
      }),
    ).rejects.toBe(veto);
    expect(await active(scope.tenant)).toEqual([]);
    expect((await listDrafts(platform, scope)).map((d) => `${d.type} ${d.name}`)).toEqual(['object note', 'seed note']);
  });
});

describe.runIf(ENGINE === 'postgres')('an abort cancels the statement the publish waits in (PostgreSQL)', () => {
  it('waiting for a tenant lock another session holds: the abort ends the wait at once, not after the 60 s lock wait', async () => {
    const scope = await staged();
    await holding(tenantLockKey(scope.tenant), async () => {
      const bound = new AbortController();
      const started = Date.now();
      const publishing = publishPackage(platform, scope, { signal: bound.signal });
      setTimeout(() => bound.abort(new Error('bound reached')), 300);
      const r = await publishing;
      expect(cancelled(r)).toEqual({ cancelled: true, error: 'nothing was published: the publish was cancelled before it committed (bound reached)' });
      // Far below LOCK_WAIT_MS (60 s): the lock wait itself was cancelled.
      expect(Date.now() - started).toBeLessThan(20_000);
    });
    expect(await active(scope.tenant)).toEqual([]);
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
  });

  it('a large publish (built ahead) waiting for the tenant lock: the abort ends that wait too', async () => {
    const scope = await staged();
    await holding(tenantLockKey(scope.tenant), async () => {
      const bound = new AbortController();
      const started = Date.now();
      // lockBudget 1: the publish builds ahead, taking the tenant's lock first, outside its transaction.
      const publishing = publishPackage(platform, scope, { signal: bound.signal, lockBudget: 1 });
      setTimeout(() => bound.abort(new Error('bound reached')), 300);
      const r = await publishing;
      expect(cancelled(r)).toEqual({ cancelled: true, error: 'nothing was published: the publish was cancelled before it committed (bound reached)' });
      expect(Date.now() - started).toBeLessThan(20_000);
    });
    expect(await active(scope.tenant)).toEqual([]);
    expect((await publishPackage(platform, scope, { lockBudget: 1 })).outcome).toBe('published');
  });

  it('an abort that comes before the lock wait begins still ends it at once (no statement to cancel yet)', async () => {
    const key = `bvl.test:${made.next('lk')}`;
    await holding(key, async () => {
      // Aborted before the call: nothing is in flight for a cancel to reach.
      const started = Date.now();
      const early = await platform.db
        .transaction()
        .execute((trx) => takeAdvisoryLock(trx, key, 'the test key', { xact: true, signal: AbortSignal.abort(new Error('early')) }))
        .catch((e: unknown) => e);
      expect((early as Error).message).toBe('early');
      // Aborted while waiting, between two tries.
      const bound = new AbortController();
      setTimeout(() => bound.abort(new Error('late')), 300);
      const late = await platform.db
        .transaction()
        .execute((trx) => takeAdvisoryLock(trx, key, 'the test key', { xact: true, signal: bound.signal }))
        .catch((e: unknown) => e);
      expect((late as Error).message).toBe('late');
      expect(Date.now() - started).toBeLessThan(20_000);
      // Without an abort the wait ends at its bound, naming the holder.
      await expect(platform.db.transaction().execute((trx) => takeAdvisoryLock(trx, key, 'the test key', { xact: true, waitMs: 300 }))).rejects.toThrow(
        /^the test key is locked by another publish: pid \d+ \(.*\) holds it, and bvl waited 0 s\./,
      );
    });
    // Free, it is taken at once, and a transaction-level lock ends with its transaction.
    await platform.db.transaction().execute((trx) => takeAdvisoryLock(trx, key, 'the test key', { xact: true, waitMs: 300 }));
    await platform.db.transaction().execute((trx) => takeAdvisoryLock(trx, key, 'the test key', { xact: true, waitMs: 300 }));
  });

  it('an abort that reaches the transaction between two statements still cancels the next one at once (the cancel is sent again)', async () => {
    const key = `bvl.test:${made.next('ca')}`;
    await holding(key, async () => {
      const bound = new AbortController();
      let waited = 0;
      const err = await platform.db
        .transaction()
        .execute(async (trx) => {
          const watch = await watchAbort(trx, platform.db, bound.signal);
          try {
            // Far beyond the bound below: only a cancel ends this wait in time.
            await sql`set local lock_timeout = '15s'`.execute(trx);
            bound.abort(new Error('bound reached'));
            // Idle in transaction: the first cancel lands between statements, where PostgreSQL drops it.
            await sleep(1_500);
            const started = Date.now();
            try {
              await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
            } finally {
              waited = Date.now() - started;
            }
          } finally {
            watch.done();
          }
        })
        .catch((e: unknown) => e);
      // 57014: canceled on request (a lock timeout would be 55P03, after 15 s).
      expect((err as { code?: string }).code).toBe('57014');
      expect(waited).toBeLessThan(10_000);
    });
  });

  it('waiting for the package another publish holds: the abort ends that wait too', async () => {
    const scope = await staged();
    let r: PublishResult | undefined;
    let elapsed = 0;
    await withPackageLock(platform, scope, async () => {
      const bound = new AbortController();
      const started = Date.now();
      const publishing = publishPackage(platform, scope, { signal: bound.signal });
      setTimeout(() => bound.abort(new Error('bound reached')), 300);
      r = await publishing;
      elapsed = Date.now() - started;
    });
    expect(cancelled(r!)).toEqual({ cancelled: true, error: 'nothing was published: the publish was cancelled before it committed (bound reached)' });
    expect(elapsed).toBeLessThan(20_000);
    expect(await active(scope.tenant)).toEqual([]);
    // The pool's connections hold no stray lock: the next publish goes through.
    expect((await publishPackage(platform, scope, { lockWaitMs: 2_000 })).outcome).toBe('published');
  });
});
