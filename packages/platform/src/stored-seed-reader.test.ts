import { collectStack, type SeedNode } from '@bvl/metadata';
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  sql,
  type UnknownRow,
} from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENGINE, useTestPlatform } from '../test/test-platform.ts';
import { openPlatform, type Platform } from './open-platform.ts';
import { SEED_STREAM, type StoredSeed, stageDrafts, storedSeedRecords } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';
import { pooledSeedRecords, SeedReaderUnavailable, type SeedRecord, type SeedRecordSource, storedSeedReader } from './seed-records.ts';

// Issue 21: after a publish, the L3 probe reads a stored seed's records through storedSeedReader —
// a cursor in its own transaction, handed out one part at a time. A reader that stops early (a
// `break`, a throw in its loop) must release that transaction: the connection goes back to the pool
// and no part is fetched past the one taken. Otherwise every early stop would leak a connection.
let platform: Platform;
// Its sessions carry a name of their own: openTransactions counts only them, not other test files'.
const SESSIONS = `bvl-test stored-seed-reader ${process.pid}`;
const made = useTestPlatform(
  (p) => {
    platform = p;
  },
  undefined,
  { applicationName: SESSIONS },
);

const RECORDS = Array.from({ length: 23 }, (_, i) => ({ code: `C-${i}`, title: `Row ${i}` }));

// Every seed body read as a stored one, its records fetched 4 at a time (by the publish and the readers).
const was = { ...SEED_STREAM };
beforeEach(() => {
  Object.assign(SEED_STREAM, { bytes: 0, part: 4, store: 0 });
});
afterEach(() => {
  Object.assign(SEED_STREAM, was);
});

/** A published package whose seed is stored, and its seed node. */
async function publishedStored(): Promise<{ tenant: string; seed: SeedNode }> {
  const tenant = made.next('reader');
  const scope = { tenant, package: 'app' };
  {
    const stack = {
      objects: [{ name: 'rd_item', fields: { code: { type: 'text' }, title: { type: 'text' } } }],
      data: [{ object: 'rd_item', externalId: 'code', records: RECORDS }],
    };
    await stageDrafts(platform, scope, collectStack(stack, { draft: true }));
    const r = await publishPackage(platform, scope);
    if (r.outcome !== 'published') throw new Error(`publish ${r.outcome}`);
    const seed = [...r.graph.seeds.values()].find((s) => s.object === 'rd_item')!;
    expect(seed.stored, 'the seed is stored, not held').toBeDefined();
    expect(seed.def.records).toEqual([]);
    return { tenant, seed };
  }
}

/** This file's platform's sessions left in an open transaction (PostgreSQL; PGlite has one connection). */
async function openTransactions(): Promise<number> {
  if (ENGINE !== 'postgres') return 0;
  const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
    where application_name = ${SESSIONS} and pid <> pg_backend_pid() and state like 'idle in transaction%'`.execute(platform.db);
  return r.rows[0]!.n;
}

describe('storedSeedReader', () => {
  it('reads every record of a stored seed, part by part, in order', async () => {
    const { tenant, seed } = await publishedStored();
    const read = storedSeedReader(platform.db, tenant)(seed)!;
    const parts: number[] = [];
    const got: unknown[] = [];
    for await (const part of read()) {
      parts.push(part.length);
      got.push(...part);
    }
    expect(got).toEqual(RECORDS);
    expect(parts).toEqual([4, 4, 4, 4, 4, 3]);
    // A held seed has no reader (its node holds its records).
    expect(storedSeedReader(platform.db, tenant)({ ...seed, stored: undefined } as SeedNode)).toBeUndefined();
  });

  it('a reader that stops early closes its transaction; more early stops than the pool has connections still leave the platform serving', async () => {
    const { tenant, seed } = await publishedStored();
    const reader = storedSeedReader(platform.db, tenant);
    const before = await openTransactions();
    // More stops than the pool's connections (10 by default; PGlite has one): a leaked transaction
    // each would leave the next read waiting forever (the test's timeout).
    for (let i = 0; i < 12; i++) {
      let taken = 0;
      for await (const part of reader(seed)!()) {
        taken += part.length;
        if (i % 2 === 0) break;
        if (taken >= 8) break;
      }
      expect(taken).toBe(i % 2 === 0 ? 4 : 8);
      expect(await openTransactions()).toBe(before);
    }
    // A throw in the reader's loop releases it too, and the error is the reader's own.
    const boom = (async () => {
      for await (const _ of reader(seed)!()) throw new Error('the reader gave up');
    })();
    await expect(boom).rejects.toThrow('the reader gave up');
    expect(await openTransactions()).toBe(before);
    // Still serving: a whole read after all of that.
    let n = 0;
    for await (const part of reader(seed)!()) n += part.length;
    expect(n).toBe(RECORDS.length);
  });

  it('read in a transaction asking for each next part ahead: every record in order, and a read that stops early leaves the transaction serving', async () => {
    const { tenant, seed } = await publishedStored();
    const stored = seed.stored as StoredSeed;
    await platform.db.transaction().execute(async (trx) => {
      const read = storedSeedRecords(trx, tenant, stored, undefined, { ahead: true });
      const got: unknown[] = [];
      for await (const part of read()) got.push(...part);
      expect(got).toEqual(RECORDS);
      const projected: unknown[] = [];
      for await (const part of read(['code'])) projected.push(...part);
      expect(projected).toEqual(RECORDS.map((r) => ({ code: r.code })));
      // Stopped after the first part, with the second asked for: it ends before the cursor closes.
      for await (const part of read()) {
        expect(part).toEqual(RECORDS.slice(0, 4));
        break;
      }
      expect((await sql<{ n: number }>`select 1 as n`.execute(trx)).rows).toEqual([{ n: 1 }]);
      await expect(
        (async () => {
          for await (const _ of read()) throw new Error('the reader gave up');
        })(),
      ).rejects.toThrow('the reader gave up');
      expect((await sql<{ n: number }>`select 2 as n`.execute(trx)).rows).toEqual([{ n: 2 }]);
    });
  });

  it('a seed gone from the store gives no records: none are made up (the caller compares with the node count)', async () => {
    const { tenant, seed } = await publishedStored();
    await platform.db.deleteFrom('bvl.metadata_items').where('tenant_id', '=', tenant).where('type', '=', 'seed').execute();
    let n = 0;
    for await (const part of storedSeedReader(platform.db, tenant)(seed)!()) n += part.length;
    // The cursor finds no row: nothing is read. The caller judges the count (the node's recordCount).
    expect(n).toBe(0);
    expect(seed.recordCount).toBe(RECORDS.length);
  });

  // The writer reads a stored seed on a connection of its own, in a snapshot of its own, after the
  // publish committed: a stage of new content for that seed can land before that snapshot is taken
  // or while it reads, and a second publish can arrive. What it writes must be the content the gate
  // judged, every record of it; the new drafts wait for the next publish, which waits for this
  // one's seeds (the package lock) and then writes the latest.
  it.runIf(ENGINE === 'postgres')(
    'stages landing before and while the writer reads a stored seed on its own connection, and a second publish: the first writes what it gated, the second what was staged last',
    async () => {
      const tenant = made.next('interleave');
      const scope = { tenant, package: 'app' };
      const stack = (records: ReadonlyArray<Record<string, unknown>>) =>
        collectStack(
          {
            objects: [{ name: 'rd_item', fields: { code: { type: 'text' }, title: { type: 'text' } } }],
            data: [{ object: 'rd_item', externalId: 'code', records }],
          },
          { draft: true },
        );
      const version = (v: number, n: number) => Array.from({ length: n }, (_, i) => ({ code: `C-${i}`, title: `Row ${i} v${v}` }));
      await stageDrafts(platform, scope, stack(RECORDS));
      // The first publish stops twice once its transaction committed: at its first statement after
      // the commit (before any seed is read), and when its writer has the first part of the stored seed.
      const stop = () => {
        let reached!: () => void;
        let go!: () => void;
        return {
          reached: new Promise<void>((resolve) => {
            reached = resolve;
          }),
          gone: new Promise<void>((resolve) => {
            go = resolve;
          }),
          reach: () => reached(),
          go: () => go(),
        };
      };
      const before = stop();
      const reading = stop();
      let at: 'gating' | 'committed' | 'reading' | 'on' = 'gating';
      const fetches = new Set<unknown>();
      const pause: KyselyPlugin = {
        transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
          const node = args.node as { kind: string; sqlFragments?: readonly string[] };
          if (node.kind === 'RawNode' && node.sqlFragments?.[0]?.trimStart().startsWith('fetch ')) fetches.add(args.queryId);
          return args.node;
        },
        async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
          if (at === 'committed') {
            at = 'reading';
            before.reach();
            await before.gone;
          } else if (at === 'reading' && fetches.has(args.queryId)) {
            at = 'on';
            reading.reach();
            await reading.gone;
          }
          return args.result;
        },
      };
      const within = <T>(p: Promise<T>, what: string) =>
        Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} waited for the first publish's seeds`)), 5_000))]);
      const first = publishPackage({ ...platform, db: platform.db.withPlugin(pause) }, scope, {
        onCommitting: () => {
          at = 'committed';
        },
      });
      await before.reached;
      await within(stageDrafts(platform, scope, stack(version(2, 24))), 'the stage before the read');
      before.go();
      await reading.reached;
      // The writer holds one part of the 23 records it gated; the store gets yet other content.
      const last = version(3, 25);
      await within(stageDrafts(platform, scope, stack(last)), 'the stage during the read');
      let secondDone = false;
      const second = publishPackage(platform, scope).finally(() => {
        secondDone = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The second publish waits for the first one's seeds (it holds the package).
      expect(secondDone).toBe(false);
      reading.go();
      const a = await first;
      expect(a.outcome).toBe('published');
      if (a.outcome !== 'published') return;
      // All 23 records it gated: a read of either staged content would give 24 or 25 (the seed rolled back).
      expect(a.seedApplied).toMatchObject({ success: true, inserted: RECORDS.length, errors: [] });
      const b = await second;
      expect(b.outcome).toBe('published');
      if (b.outcome !== 'published') return;
      expect(b.seedApplied).toMatchObject({ success: true, inserted: 2, updated: RECORDS.length, errors: [] });
      const rows = await sql<{ title: string }>`select title from ${sql.table(`${a.schema}.rd_item`)}`.execute(platform.db);
      expect(rows.rows.map((r) => r.title).sort()).toEqual(last.map((r) => r.title).sort());
    },
  );

  // The seed writer on PostgreSQL reads a stored seed on a connection of its own (pooledSeedRecords),
  // so the next part is read while its statement runs. Its pool is the one the publishes pin their
  // connections from: when every connection is taken, it must not wait for one (a publish holding
  // one and waiting for another, times the pool's size, never ends) but read in the seed's own transaction.
  it.runIf(ENGINE === 'postgres')(
    'with every connection of the pool taken, a reader given a wait reads nothing and says so, and the seed writer reads in its own transaction instead',
    async () => {
      const { tenant, seed } = await publishedStored();
      const small = await openPlatform({ databaseUrl: process.env.DATABASE_URL!, maxConnections: 1 });
      try {
        let release!: () => void;
        let holding!: () => void;
        const held = small.db.connection().execute(
          () =>
            new Promise<void>((resolve) => {
              release = resolve;
              holding();
            }),
        );
        await new Promise<void>((resolve) => {
          holding = resolve;
        });
        const readAll = async (source: SeedRecordSource) => {
          const got: SeedRecord[] = [];
          for await (const part of source()) got.push(...part);
          return got;
        };
        await expect(readAll(storedSeedReader(small.db, tenant, { waitMs: 100 })(seed)!)).rejects.toThrow(SeedReaderUnavailable);
        // The writer's source falls back to the seed's transaction: every record, in order, not detached.
        const fallback = await platform.db.transaction().execute(async (trx) => {
          const source = pooledSeedRecords(small.db, tenant, 100)(trx, seed);
          return { records: await readAll(source), detached: source.detached };
        });
        expect(fallback).toEqual({ records: RECORDS, detached: false });
        release();
        await held;
        // The transactions the readers asked for ended once they had the connection: it serves a whole read.
        const free = await platform.db.transaction().execute(async (trx) => {
          const source = pooledSeedRecords(small.db, tenant, 5_000)(trx, seed);
          return { records: await readAll(source), detached: source.detached };
        });
        expect(free).toEqual({ records: RECORDS, detached: true });
      } finally {
        await small.close();
      }
    },
  );
});
