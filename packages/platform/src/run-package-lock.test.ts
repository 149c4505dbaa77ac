import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, uniqueTenant } from '../test/test-platform.ts';
import { openPlatform, type Platform } from './open-platform.ts';
import { packageLockKey, publishApplicationName, withPackageLock } from './run-package-lock.ts';

// A wait for a package's lock holds no pool connection: publishes queued behind one package (one
// tenant's burst) must not take the connections every other caller needs.
describe.runIf(ENGINE === 'postgres')('waiting for a package lock (PostgreSQL)', () => {
  let platform: Platform;
  const scope = { tenant: uniqueTenant('lockwait'), package: 'app' };
  const SESSIONS = `bvl-test ${scope.tenant}`;
  beforeAll(async () => {
    // A small pool, as a busy server's would be: 2 connections for 4 waiters.
    // Its sessions named, so the count of lock waits below sees only this test's (other test files
    // wait for advisory locks on the same database at the same time).
    platform = await openPlatform({ databaseUrl: process.env.DATABASE_URL, maxConnections: 2, applicationName: SESSIONS });
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('4 waiters on a pool of 2: other queries still get a connection, no session waits in a lock, and each waiter runs once the lock is free', async () => {
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL, application_name: 'bvl test holder' });
    await holder.connect();
    const ran: number[] = [];
    let waiters: Promise<unknown>[] = [];
    try {
      await holder.query('select pg_advisory_lock(hashtextextended($1, 0))', [packageLockKey(scope)]);
      waiters = [0, 1, 2, 3].map((i) =>
        withPackageLock(
          platform,
          scope,
          async (pinned) => {
            await sql`select 1`.execute(pinned.db);
            ran.push(i);
          },
          { waitMs: 20_000 },
        ),
      );
      await new Promise((r) => setTimeout(r, 400));
      expect(ran).toEqual([]);
      // The pool is free for everyone else meanwhile (a blocked wait would hold both connections:
      // this query would wait the pool's 10 s connection timeout and fail).
      const t0 = Date.now();
      const db = (await sql<{ db: string }>`select current_database() as db`.execute(platform.db)).rows[0]!.db;
      expect(Date.now() - t0).toBeLessThan(2_000);
      // No session of this platform sits in a lock wait (the old pg_advisory_lock wait did).
      const { rows } = await holder.query(
        `select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = any($2::text[]) and wait_event_type = 'Lock' and query like '%advisory%'`,
        [db, [SESSIONS, publishApplicationName(scope)]],
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await holder.query('select pg_advisory_unlock(hashtextextended($1, 0))', [packageLockKey(scope)]);
      await holder.end();
    }
    await Promise.all(waiters);
    expect([...ran].sort()).toEqual([0, 1, 2, 3]);
  });

  it('an abort ends the wait between tries: the abort reason is thrown, nothing ran', async () => {
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock(hashtextextended($1, 0))', [packageLockKey(scope)]);
      const stop = new AbortController();
      let ran = false;
      const waiting = withPackageLock(
        platform,
        scope,
        async () => {
          ran = true;
        },
        { signal: stop.signal },
      );
      setTimeout(() => stop.abort(new Error('the caller gave up')), 200);
      const t0 = Date.now();
      await expect(waiting).rejects.toThrow('the caller gave up');
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(ran).toBe(false);
    } finally {
      await holder.end();
    }
  });
});
