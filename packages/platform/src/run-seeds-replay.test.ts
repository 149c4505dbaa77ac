import { buildGraph, collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestPlatform } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { stageDrafts } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';
import { applySeeds } from './run-seeds.ts';
import { SEED_CHUNK } from './seed-limits.ts';

// A replay's match also compares each record's values with its row (one statement per chunk): a
// row that already holds them takes no statement, and every other row is written as before.
const NOW = new Date('2026-03-15T10:30:00Z');
let platform: Platform;
const made = useTestPlatform(
  (p) => {
    platform = p;
  },
  () => NOW,
);

const OBJECTS = [
  { name: 'grp', fields: { name: { type: 'text' } } },
  {
    name: 'kv',
    fields: {
      code: { type: 'text' },
      val: { type: 'number' },
      day: { type: 'date' },
      tags: { type: 'text', multiple: true },
      grp: { type: 'lookup', reference: 'grp' },
    },
  },
];
const rec = (i: number, val: unknown = i) => ({ code: `K${i}`, val, day: { dialect: 'cel', source: `daysAgo(${i % 3})` }, tags: [`t${i}`], grp: `G${i % 2}` });

/** A tenant whose package published the objects' tables with empty seeds: the schema applySeeds writes into. */
async function publishedTables(label: string): Promise<string> {
  const tenant = made.next(label);
  const scope = { tenant, package: 'app' };
  const data = [
    { object: 'grp', records: [] },
    { object: 'kv', externalId: 'code', records: [] },
  ];
  await stageDrafts(platform, scope, collectStack({ objects: OBJECTS, data }, { draft: true }));
  expect((await publishPackage(platform, scope)).outcome).toBe('published');
  return tenantSchema(tenant);
}

describe('a replay compares in its match', () => {
  it('rewrites only the rows whose values differ, merges a key given twice, and names a value the column refuses as before', async () => {
    const schema = await publishedTables('replay');
    const apply = (records: unknown[]) =>
      applySeeds(platform, {
        schema,
        graph: buildGraph(
          collectStack({
            objects: OBJECTS,
            data: [
              { object: 'grp', externalId: 'name', records: [{ name: 'G0' }, { name: 'G1' }] },
              { object: 'kv', externalId: 'code', records },
            ],
          }),
        ).graph,
        now: NOW,
      });
    const versions = async () =>
      Object.fromEntries(
        (await sql<{ code: string; v: string }>`select code, xmin::text as v from ${sql.id(schema, 'kv')}`.execute(platform.db)).rows.map((r) => [r.code, r.v]),
      );
    const values = async () =>
      Object.fromEntries(
        (await sql<{ code: string; val: string }>`select code, val::text as val from ${sql.id(schema, 'kv')}`.execute(platform.db)).rows.map((r) => [
          r.code,
          r.val,
        ]),
      );
    const base = Array.from({ length: 6 }, (_, i) => rec(i));
    const first = await apply(base);
    expect(first).toMatchObject({ inserted: 8, updated: 0, errors: [] });
    const was = await versions();

    // The same records: every row matched, none rewritten.
    const same = await apply(base);
    expect(same).toMatchObject({ inserted: 0, updated: 8, errors: [] });
    expect(same.seeds.map((s) => s.changed)).toEqual([undefined, undefined]);
    expect(await versions()).toEqual(was);

    // K1's value changes; K2 is given twice, the later record changing it.
    const changed = [...base.map((r, i) => (i === 1 ? rec(1, 100) : r)), rec(2, 200)];
    const again = await apply(changed);
    expect(again).toMatchObject({ inserted: 0, updated: 9, errors: [] });
    expect(again.seeds[1]).toMatchObject({ updated: 7, changed: 2 });
    const now = await versions();
    expect(
      Object.keys(now)
        .filter((k) => now[k] !== was[k])
        .sort(),
    ).toEqual(['K1', 'K2']);
    expect(await values()).toMatchObject({ K0: '0', K1: '100', K2: '200', K3: '3' });

    // K3's value is refused by its column: named as an update names it; K1 goes back.
    const refused = await apply(base.map((r, i) => (i === 3 ? rec(3, 'abc') : r)));
    expect(refused.errors.map((e) => [e.recordIndex, e.field, e.message])).toEqual([
      [3, 'val', 'row not updated: invalid input syntax for type numeric: "abc"'],
    ]);
    expect(refused.seeds[1]).toMatchObject({ updated: 5, failed: 1, changed: 2 });
    expect(await values()).toMatchObject({ K1: '1', K2: '2', K3: '3' });
  });

  it('resolves a lookup key in a later chunk as in the first, and reports one that matches nothing in each', async () => {
    const schema = await publishedTables('lookups');
    const records = Array.from({ length: SEED_CHUNK + 3 }, (_, i) => ({ code: `K${i}`, grp: i % 1000 === 7 || i === SEED_CHUNK + 1 ? 'G9' : `G${i % 2}` }));
    const applied = await applySeeds(platform, {
      schema,
      graph: buildGraph(
        collectStack({
          objects: OBJECTS,
          data: [
            { object: 'grp', externalId: 'name', records: [{ name: 'G0' }, { name: 'G1' }] },
            { object: 'kv', externalId: 'code', records },
          ],
        }),
      ).graph,
      now: NOW,
    });
    const missing = records.flatMap((r, i) => (r.grp === 'G9' ? [i] : []));
    expect(missing.at(-1)).toBeGreaterThanOrEqual(SEED_CHUNK);
    expect(applied.errors.map((e) => [e.recordIndex, e.field])).toEqual(missing.map((i) => [i, 'grp']));
    const rows = (
      await sql<{ n: string; g: string | null; c: number }>`select k.code as n, g.name as g, count(*) over () as c from ${sql.id(schema, 'kv')} as k
        left join ${sql.id(schema, 'grp')} as g on g.id = k.grp`.execute(platform.db)
    ).rows;
    expect(rows).toHaveLength(records.length);
    const byCode = new Map(rows.map((r) => [r.n, r.g]));
    for (const [i, r] of records.entries()) expect(byCode.get(`K${i}`), `K${i}`).toBe(r.grp === 'G9' ? null : r.grp);
  });
});
