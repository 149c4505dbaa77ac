import { buildGraph, collectStack, type Graph, type SeedNode } from '@bvl/metadata';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestPlatform } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { readExistingSchema } from './run-ddl.ts';
import { type StoredSeed, stageDrafts, storedSeedRecords } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';
import { checkRepublish, type RepublishCheck } from './run-republish-checks.ts';
import { applySeeds } from './run-seeds.ts';
import { SEED_CHUNK } from './seed-limits.ts';

// Issue 21: a `replace` seed's keys are read from its source part by part (a stored seed by cursor),
// never held whole, and the republish check counts the rows it would delete exactly as over the
// records held: more keys than a chunk go to a temporary table joined once.
const NOW = new Date('2026-03-15T10:30:00Z');
let platform: Platform;
const made = useTestPlatform(
  (p) => {
    platform = p;
  },
  () => NOW,
);

const OBJECTS = [{ name: 'tag', fields: { name: { type: 'text' }, n: { type: 'number' } } }];

describe('the replace check over a seed read from its source', () => {
  for (const size of [7, SEED_CHUNK + 300])
    it(`counts the rows no record recreates as over the records held (${size} records), at parts of 1, 2, 5 and 5,000`, async () => {
      const tenant = made.next('replace');
      const scope = { tenant, package: 'app' };
      const schema = tenantSchema(tenant);
      // Keys repeat, some records have none, one is a number.
      const records = Array.from({ length: size }, (_, i) => (i % 9 === 4 ? { n: i } : { name: i === 2 ? 2 : `t${i % (size - 3)}`, n: i }));
      const data = [{ object: 'tag', mode: 'replace', records }];
      await stageDrafts(platform, scope, collectStack({ objects: OBJECTS }, { draft: true }));
      expect((await publishPackage(platform, scope)).outcome).toBe('published');
      const { graph } = buildGraph(collectStack({ objects: OBJECTS, data }));
      expect((await applySeeds(platform, { schema, graph, now: NOW })).seeds[0]).toMatchObject({ applied: true });
      // Rows added outside the seed: 3 by other keys, 2 without one, 1 with a key the seed has.
      await sql`insert into ${sql.id(schema, 'tag')} (id, name) values ('u1', 'user-1'), ('u2', 'user-2'), ('u3', 'user-3'), ('u4', null), ('u5', null), ('u6', 't1')`.execute(
        platform.db,
      );
      await stageDrafts(platform, scope, collectStack({ objects: OBJECTS, data }, { draft: true }));
      const row = await platform.db
        .selectFrom('bvl.metadata_items')
        .select(['package', 'name', 'state', 'content_hash'])
        .where('tenant_id', '=', tenant)
        .where('type', '=', 'seed')
        .where('state', '=', 'draft')
        .executeTakeFirstOrThrow();
      const handle: StoredSeed = { package: row.package, name: row.name, state: row.state, contentHash: row.content_hash! };
      const seed = graph.seeds.get(row.name)!;
      const storedSeed: SeedNode = { ...seed, def: { ...seed.def, records: [] }, stored: handle };
      const check = (g: Graph, s: SeedNode, part?: number) =>
        platform.db.transaction().execute(async (trx) => {
          const input = {
            schema,
            steps: [],
            existing: await readExistingSchema(trx, schema),
            tables: [],
            graph: g,
            before: new Map(),
            seeds: [s],
            env: 'dev',
            allowDataChange: false,
          };
          return checkRepublish(trx, part === undefined ? input : { ...input, records: (t, n) => storedSeedRecords(t, tenant, n.stored as StoredSeed, part) });
        });
      const held: RepublishCheck = await check(graph, seed);
      // The seed's own records without a key are rows no record recreates by key too.
      const extra = 5 + records.filter((r) => !('name' in r)).length;
      const rowsNow = Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.id(schema, 'tag')}`.execute(platform.db)).rows[0]!.n);
      expect(held.errors.map((e) => e.message)).toEqual([
        `Seed "${seed.name}" uses mode "replace": this publish would delete all ${rowsNow} rows of object "tag" and write its ${size} records again, and ${extra} rows are not among the seed's records (added outside the seed): they would be gone. bvl refused the publish so that no data is lost by accident.`,
      ]);
      const storedGraph: Graph = { ...graph, seeds: new Map([[seed.name, storedSeed]]) };
      for (const part of [1, 2, 5, 5_000]) expect(await check(storedGraph, storedSeed, part), `parts of ${part}`).toEqual(held);
    }, 300_000);
});
