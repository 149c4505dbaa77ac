import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { buildGraph, collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, openTestPlatform, tenants } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { stageDrafts } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';
import { applySeeds, seedMatchStats } from './run-seeds.ts';
import { SEED_CHUNK } from './seed-limits.ts';
import { heldSeedRecords, type SeedRecordsOf } from './seed-records.ts';

// The seed writer keeps nothing per record across its chunks (issue 21: memory flat in the row
// count): a later record of a key an earlier chunk wrote is matched in the table, so what it does
// must be what it did when the writer held every key and row id.
const NOW = new Date('2026-03-15T10:30:00Z');
let platform: Platform;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => NOW);
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

const OBJECTS = [{ name: 'kv', fields: { code: { type: 'text' }, serial: { type: 'text', unique: true }, val: { type: 'number' } } }];

describe('the seed writer across chunks', () => {
  it('a key repeated in a later chunk updates the row an earlier chunk wrote; one whose insert failed is refused, not inserted', async () => {
    const tenant = made.next('chunks');
    const scope = { tenant, package: 'app' };
    await stageDrafts(platform, scope, collectStack({ objects: OBJECTS, data: [{ object: 'kv', externalId: 'code', records: [] }] }, { draft: true }));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const distinct = SEED_CHUNK + 50;
    // K0…K49 again in the second chunk; record 10's serial clashes with record 3's (the database refuses its insert).
    const records = Array.from({ length: distinct + 50 }, (_, i) => ({ code: `K${i % distinct}`, serial: i === 10 ? 'S3' : `S${i}`, val: i }));
    const apply = () =>
      applySeeds(platform, {
        schema: tenantSchema(tenant),
        graph: buildGraph(collectStack({ objects: OBJECTS, data: [{ object: 'kv', externalId: 'code', records }] })).graph,
        now: NOW,
      });
    const first = await apply();
    expect(first).toMatchObject({ inserted: distinct - 1, updated: 49, errorsOmitted: 0 });
    expect(first.seeds[0]).toMatchObject({ failed: 2 });
    expect(first.errors.map((e) => [e.recordIndex, e.field, e.message.replace(/constraint "[^"]+"/, 'constraint')])).toEqual([
      [10, 'serial', 'row not written: duplicate key value violates unique constraint (Key (serial)=(S3) already exists.)'],
      [distinct + 10, undefined, 'row not updated: it was not written earlier in this seed'],
    ]);
    const rows = async () =>
      (await sql<{ code: string; val: number }>`select code, val::int as val from ${sql.id(tenantSchema(tenant), 'kv')} order by code`.execute(platform.db))
        .rows;
    const after = await rows();
    expect(after).toHaveLength(distinct - 1);
    expect(after.find((r) => r.code === 'K3')).toEqual({ code: 'K3', val: distinct + 3 });
    expect(after.find((r) => r.code === 'K10')).toBeUndefined();
    expect(after.find((r) => r.code === 'K60')).toEqual({ code: 'K60', val: 60 });
  });

  it('keeps no memory per record it writes: the heap it holds is the same for 20,000 records and for 120,000', { timeout: 300_000 }, async () => {
    // In a child process (its own heap, sampled after a full GC): the records are built before the
    // level is taken, so the rise is what the writer kept. Holding each key's row id cost about 115
    // bytes a record (11 MB more for the larger seed); the key filter holds 3.
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--conditions=development', '--import', 'tsx', join(import.meta.dirname, '../test/seed-writer-memory-child.ts')],
      { env: { ...process.env, BVL_TEST_ENGINE: ENGINE, BVL_SIZES: '20000,120000' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const rise = JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
    const perRecord = (rise['120000']! - rise['20000']!) / 100_000;
    expect(perRecord).toBeLessThan(40);
  });

  // A million rows come as seeds of at most INPUT_LIMITS.records each, of one object: the second
  // starts on a table the first filled. The keys the first wrote are carried on (a record whose key
  // none of them has needs no match), but only while the table holds exactly the rows they inserted.
  describe('two seeds of one object in one run', () => {
    const seedsOf = (first: object[], second: object[]) =>
      buildGraph(
        collectStack({
          objects: OBJECTS,
          data: [
            { object: 'kv', externalId: 'code', records: first },
            { object: 'kv', externalId: 'code', records: second },
          ],
        }),
      ).graph;
    const kv = (i: number, val: number) => ({ code: `K${i}`, serial: `S${i}`, val });
    const rows = async (tenant: string) =>
      (await sql<{ code: string; val: number }>`select code, val::int as val from ${sql.id(tenantSchema(tenant), 'kv')} order by val`.execute(platform.db))
        .rows;
    const emptyTable = async (label: string) => {
      const tenant = made.next(label);
      const scope = { tenant, package: 'app' };
      await stageDrafts(platform, scope, collectStack({ objects: OBJECTS, data: [{ object: 'kv', externalId: 'code', records: [] }] }, { draft: true }));
      expect((await publishPackage(platform, scope)).outcome).toBe('published');
      return tenant;
    };

    it('the second seed matches only the records whose key the first wrote: those update its rows, the rest are inserted', async () => {
      const tenant = await emptyTable('carry');
      const first = Array.from({ length: 30 }, (_, i) => kv(i, i));
      // K0…K9 again (updates), K30…K49 new.
      const second = Array.from({ length: 30 }, (_, i) => kv(i < 10 ? i : i + 20, 100 + i));
      const matchedBefore = seedMatchStats.records;
      const r = await applySeeds(platform, { schema: tenantSchema(tenant), graph: seedsOf(first, second), now: NOW });
      expect(r).toMatchObject({ success: true, inserted: 50, updated: 10 });
      // Only the ten records of keys the first seed wrote were looked for in the table.
      expect(seedMatchStats.records - matchedBefore).toBe(10);
      const after = await rows(tenant);
      expect(after).toHaveLength(50);
      expect(after.find((x) => x.code === 'K3')).toEqual({ code: 'K3', val: 103 });
      expect(after.find((x) => x.code === 'K40')).toEqual({ code: 'K40', val: 120 });
    });

    it('a row written between the seeds by another writer is matched, not duplicated: the filter is not carried on', async () => {
      const tenant = await emptyTable('carrygap');
      const first = Array.from({ length: 30 }, (_, i) => kv(i, i));
      const second = [kv(3, 103), kv(77, 177)];
      // The first seed's source writes K77 in its transaction once its records are read (another
      // writer's row, as far as the seeds' count goes): the table then holds a row none of them inserted.
      let seedNo = 0;
      const records: SeedRecordsOf = (trx, seed) => {
        const held = heldSeedRecords(trx, seed);
        if (seedNo++ > 0) return held;
        return async function* () {
          yield* held();
          await sql`insert into ${sql.id(tenantSchema(tenant), 'kv')} (id, code, serial, val) values ('other-77', 'K77', 'S77', 77)`.execute(trx);
        };
      };
      const matchedBefore = seedMatchStats.records;
      const r = await applySeeds(platform, { schema: tenantSchema(tenant), graph: seedsOf(first, second), now: NOW, records });
      expect(r).toMatchObject({ success: true, inserted: 30, updated: 2 });
      // Every record of the second seed was looked for in the table (its filter was not carried on).
      expect(seedMatchStats.records - matchedBefore).toBe(2);
      const after = await rows(tenant);
      expect(after.filter((x) => x.code === 'K77')).toEqual([{ code: 'K77', val: 177 }]);
      expect(after).toHaveLength(31);
    });
  });
});
