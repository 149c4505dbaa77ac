import { buildGraph, collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, tenants } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { stageDrafts } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';
import { seedCopyStats } from './run-seed-writes.ts';
import { applySeeds, type SeedApplied } from './run-seeds.ts';

// The bulk path (COPY) against the path it replaced (INSERT … SELECT unnest): the same seeds into
// two tenants, one each way, must leave the same rows and the same report — bad values, odd text,
// lists, defaults, lookups, merges and a unique clash included — and a replay must write nothing
// but the rows that changed.
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

const OBJECTS = [
  { name: 'grp', fields: { name: { type: 'text' }, parent: { type: 'lookup', reference: 'grp' } } },
  {
    name: 'item',
    fields: {
      code: { type: 'text' },
      title: { type: 'text', maxLength: 40 },
      note: { type: 'textarea' },
      amount: { type: 'currency' },
      score: { type: 'number' },
      due: { type: 'date' },
      seen_at: { type: 'datetime' },
      at: { type: 'time' },
      done: { type: 'boolean' },
      tags: { type: 'multiselect' },
      vec: { type: 'vector' },
      meta: { type: 'json' },
      state: { type: 'select', options: ['open', 'done'], defaultValue: 'open' },
      serial: { type: 'text', unique: true },
      grp: { type: 'lookup', reference: 'grp' },
      grps: { type: 'lookup', reference: 'grp', multiple: true },
      req: { type: 'text', required: true, defaultValue: 'r' },
    },
  },
];

const ODD = [
  'tab\there',
  'line\nbreak',
  'cr\rhere',
  'back\\slash',
  '\\N',
  'quote"d',
  "it's",
  '{brace}',
  'comma,sep',
  'NULL',
  '',
  ' spaced ',
  'émoji 🚀',
  '\\.',
];

/** Records covering what the two paths must agree on; `bad` adds the values the database refuses. */
function items(n: number, variant = 0): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => {
    const r: Record<string, unknown> = { code: `C${i % (n - 7)}`, title: `${ODD[i % ODD.length]} ${i}`, amount: (i % 97) * 1.5 + (i % 10 === 0 ? variant : 0) };
    if (i % 3 === 0) r.note = ODD[(i + 3) % ODD.length];
    if (i % 5 === 0) r.score = i % 2 ? '1e+21' : 1e-7 * i;
    if (i % 4 === 0) r.due = { dialect: 'cel', source: `daysAgo(${i % 40})` };
    if (i % 6 === 0) r.seen_at = '2026-01-02T03:04:05Z';
    if (i % 7 === 0) r.at = '12:34:56';
    if (i % 2 === 0) r.done = i % 4 === 0;
    if (i % 3 === 1) r.tags = [ODD[i % ODD.length], 'NULL', 'a,b', 'c"d', 'e\\f', `t${i % 5}`];
    if (i % 11 === 0) r.tags = [];
    if (i % 13 === 0) r.tags = ['x', null, 'y'];
    if (i % 8 === 0) r.vec = [i, -0.5, 1e21, 5e-324];
    if (i % 9 === 0) r.meta = { i, s: ODD[i % ODD.length], list: [1, 'two', null] };
    if (i % 10 === 0) r.state = 'done';
    if (i % 10 === 5) r.state = null;
    if (i % 300 === 0) r.serial = `S${i % 4_800}`; // repeats at record 4,800: a unique clash the database refuses
    if (i % 3 === 2) r.grp = `G${i % 4}`;
    if (i % 170 === 0) r.grp = 'missing';
    if (i % 4 === 1) r.grps = [`G${i % 4}`, `G${(i + 1) % 4}`];
    if (i % 190 === 0) r.req = '';
    if (i === 5) r.title = 'x'.repeat(41); // over maxLength: the write contract refuses it
    if (i === 31) r.amount = 'abc';
    if (i === 1_234) r.due = '2026-02-30';
    if (i === 2_001) r.vec = ['nope'];
    if (i === 40) r.bogus = 1;
    return r;
  });
}

const data = (n: number, variant = 0) => [
  { object: 'item', externalId: 'code', records: items(n, variant) },
  { object: 'grp', externalId: 'name', records: [{ name: 'G0' }, { name: 'G1', parent: 'G0' }, { name: 'G2', parent: 'G3' }, { name: 'G3' }] },
];

/** A tenant with the objects published, and the seeds applied to it directly, `bulk` or not. */
async function seeded(bulk: boolean, records: number): Promise<{ tenant: string; applied: SeedApplied }> {
  const tenant = made.next(bulk ? 'bulk' : 'unnest');
  await stageDrafts(
    platform,
    { tenant, package: 'app' },
    collectStack({ objects: OBJECTS, data: data(records).map((d) => ({ ...d, records: [] })) }, { draft: true }),
  );
  const r = await publishPackage(platform, { tenant, package: 'app' });
  expect(r.outcome).toBe('published');
  return { tenant, applied: await apply(tenant, bulk, records) };
}

const apply = (tenant: string, bulk: boolean, records: number, variant = 0) =>
  applySeeds(platform, {
    schema: tenantSchema(tenant),
    graph: buildGraph(collectStack({ objects: OBJECTS, data: data(records, variant) })).graph,
    now: NOW,
    bulk,
  });

/** Every row of `table` as text, ids (the row's own and its lookups') replaced by the natural key they point at. */
async function contents(tenant: string, table: string, key: string): Promise<unknown[]> {
  const schema = tenantSchema(tenant);
  const names = new Map(
    (await sql<{ id: string; name: string }>`select id, name from ${sql.id(schema, 'grp')}`.execute(platform.db)).rows.map((r) => [r.id, r.name]),
  );
  const rows = (
    await sql<{ j: Record<string, unknown> }>`select to_jsonb(t) - 'id' as j from ${sql.id(schema, table)} as t order by ${sql.ref(`t.${key}`)}`.execute(
      platform.db,
    )
  ).rows;
  return rows.map(({ j }) => {
    const out: Record<string, unknown> = { ...j };
    for (const f of ['grp', 'parent']) if (typeof out[f] === 'string') out[f] = `→${names.get(out[f] as string) ?? '?'}`;
    if (Array.isArray(out.grps)) out.grps = out.grps.map((g) => `→${names.get(g as string) ?? '?'}`);
    return out;
  });
}

describe('the bulk seed path (COPY) writes what INSERT … SELECT unnest wrote', () => {
  it('same rows and the same report on a first publish and on a replay; a replay writes only the rows that changed', async () => {
    const n = 5_100; // past one chunk (5,000 records)
    const before = { ...seedCopyStats };
    const bulk = await seeded(true, n);
    const copied = seedCopyStats.rows - before.rows;
    const plain = await seeded(false, n);
    // The bulk path ran, and fell back where COPY refused a batch.
    expect(copied).toBeGreaterThan(n / 2);
    expect(seedCopyStats.fallbacks).toBeGreaterThan(before.fallbacks);
    expect(seedCopyStats.rows - before.rows).toBe(copied);
    expect(bulk.applied).toEqual(plain.applied);
    expect(bulk.applied.errors.length).toBeGreaterThan(10);
    expect(bulk.applied.inserted).toBeGreaterThan(n - 200);
    for (const [table, key] of [
      ['item', 'code'],
      ['grp', 'name'],
    ] as const)
      expect(await contents(bulk.tenant, table, key)).toEqual(await contents(plain.tenant, table, key));

    // A replay of the same seeds changes nothing: no row gets a new version (xmin), not even updated_at.
    // (C0…C6 are given twice, in different chunks of 5,000 records: each chunk writes its record.)
    const versions = async (tenant: string) =>
      (
        await sql<{ v: string }>`select id || ':' || xmin::text as v from ${sql.id(tenantSchema(tenant), 'item')}
          where code not in ('C0', 'C1', 'C2', 'C3', 'C4', 'C5', 'C6') order by id`.execute(platform.db)
      ).rows.map((r) => r.v);
    const was = await versions(bulk.tenant);
    const again = await apply(bulk.tenant, true, n);
    expect(await versions(bulk.tenant)).toEqual(was);
    expect(again).toMatchObject({ inserted: 0, updated: bulk.applied.inserted + bulk.applied.updated });

    // A replay that changes some amounts rewrites those rows only, the same both ways.
    const changed = await apply(bulk.tenant, true, n, 1);
    expect(changed).toEqual(await apply(plain.tenant, false, n, 1));
    const now = await versions(bulk.tenant);
    const rewritten = now.filter((v, i) => v !== was[i]).length;
    expect(rewritten).toBeGreaterThan(0);
    expect(rewritten).toBeLessThan(now.length);
    expect(await contents(bulk.tenant, 'item', 'code')).toEqual(await contents(plain.tenant, 'item', 'code'));
  });
});
