import { buildGraph, collectStack } from '@bvl/metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, tenants } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { stageDrafts } from './run-drafts.ts';
import { type PublishOptions, publishPackage } from './run-publish.ts';
import { applySeeds, type SeedApplied } from './run-seeds.ts';

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
  { name: 'cat', fields: { name: { type: 'text' }, parent: { type: 'lookup', reference: 'cat' } } },
  {
    name: 'acct',
    fields: {
      name: { type: 'text' },
      code: { type: 'text' },
      revenue: { type: 'currency' },
      tags: { type: 'multiselect' },
      since: { type: 'date' },
      seen_at: { type: 'datetime' },
      meta: { type: 'json' },
    },
  },
  {
    name: 'contact',
    fields: { email: { type: 'text' }, acct: { type: 'lookup', reference: 'acct' }, cats: { type: 'lookup', reference: 'cat', multiple: true } },
  },
  {
    name: 'member',
    fields: { acct: { type: 'master_detail', reference: 'acct' }, contact: { type: 'master_detail', reference: 'contact' }, role: { type: 'text' } },
  },
];

/** Publishes the objects plus `data` into `tenant` and returns the seed report. */
async function publish(tenant: string, data: unknown[], options: PublishOptions = {}): Promise<SeedApplied> {
  const scope = { tenant, package: 'app' };
  await stageDrafts(platform, scope, collectStack({ objects: OBJECTS, data }, { draft: true }));
  const r = await publishPackage(platform, scope, options);
  if (r.outcome !== 'published') throw new Error(`not published: ${JSON.stringify(r)}`);
  return r.seedApplied;
}
/**
 * The seed writer on its own, past the publish gate: what it does with values L1 refuses (a
 * published seed's lookup target can change under it, so the writer must stay honest by itself).
 */
async function applyDirect(tenant: string, data: unknown[]): Promise<SeedApplied> {
  await publish(tenant, []);
  const { graph } = buildGraph(collectStack({ objects: OBJECTS, data }));
  return applySeeds(platform, { schema: tenantSchema(tenant), graph, now: NOW });
}
const rows = (tenant: string, table: string, orderBy = 'created_at') =>
  platform.db
    .withSchema(tenantSchema(tenant))
    .selectFrom(table as never)
    .selectAll()
    .orderBy(orderBy as never)
    .execute() as Promise<Array<Record<string, unknown>>>;

describe('applySeeds (through publish)', () => {
  const accounts = {
    object: 'acct',
    externalId: 'code',
    records: [
      { code: 'A1', name: 'Acme', revenue: 10 },
      { code: 'G1', name: 'Globex', revenue: 20 },
    ],
  };

  it('upserts by externalId: a replay updates, a repeat inside one seed merges', async () => {
    const t = made.next();
    expect(await publish(t, [{ ...accounts, records: [...accounts.records, { code: 'A1', name: 'Acme Corp' }] }])).toMatchObject({
      success: true,
      inserted: 2,
      updated: 1,
    });
    expect(await publish(t, [accounts])).toMatchObject({ success: true, inserted: 0, updated: 2 });
    expect((await rows(t, 'acct', 'code')).map((r) => [r.code, r.name, r.revenue])).toEqual([
      ['A1', 'Acme', '10'],
      ['G1', 'Globex', '20'],
    ]);
  });

  it('many records of one key: the last one wins, the same on the first publish and on a replay', async () => {
    const t = made.next();
    const seed = { object: 'acct', externalId: 'code', records: Array.from({ length: 300 }, (_, i) => ({ code: `K${i % 3}`, name: `n${i}`, revenue: i })) };
    const last = [
      ['K0', 'n297', '297'],
      ['K1', 'n298', '298'],
      ['K2', 'n299', '299'],
    ];
    expect(await publish(t, [seed])).toMatchObject({ success: true, inserted: 3, updated: 297 });
    expect((await rows(t, 'acct', 'code')).map((r) => [r.code, r.name, r.revenue])).toEqual(last);
    expect(await publish(t, [seed])).toMatchObject({ success: true, inserted: 0, updated: 300 });
    expect((await rows(t, 'acct', 'code')).map((r) => [r.code, r.name, r.revenue])).toEqual(last);
  });

  it("mode 'insert' duplicates on replay; 'ignore' leaves existing rows alone; 'update' only updates", async () => {
    const t = made.next();
    await publish(t, [{ ...accounts, mode: 'insert' }]);
    await publish(t, [{ ...accounts, mode: 'insert' }]);
    expect(await rows(t, 'acct')).toHaveLength(4);
    const u = made.next();
    await publish(u, [accounts]);
    expect(
      await publish(u, [
        {
          ...accounts,
          mode: 'ignore',
          records: [
            { code: 'A1', name: 'changed' },
            { code: 'N1', name: 'New' },
          ],
        },
      ]),
    ).toMatchObject({ inserted: 1, updated: 0, skipped: 1 });
    expect((await rows(u, 'acct', 'code')).map((r) => r.name)).toEqual(['Acme', 'Globex', 'New']);
    const upd = await publish(u, [
      {
        ...accounts,
        mode: 'update',
        records: [
          { code: 'G1', name: 'Globex 2' },
          { code: 'Z9', name: 'Ghost' },
        ],
      },
    ]);
    expect(upd).toMatchObject({
      success: false,
      inserted: 0,
      updated: 1,
      errors: [{ recordIndex: 1, message: expect.stringMatching(/mode 'update' found no "acct" row with code = "Z9"/) }],
    });
  });

  it('updates in batches with every column type, and fails only the bad row of a batch', async () => {
    const t = made.next();
    await publish(t, [accounts]);
    const replay = await publish(t, [
      {
        ...accounts,
        records: [
          {
            code: 'A1',
            name: 'Acme 2',
            revenue: 11,
            tags: ['x', 'y,z'],
            meta: { k: 'v' },
            since: { dialect: 'cel', source: 'today()' },
            seen_at: '2026-01-02T03:04:05Z',
          },
          // A date JavaScript reads (so L1 and ObjectStack's write path take it) that PostgreSQL refuses.
          { code: 'G1', name: 'Globex 2', revenue: 21, since: '2026-02-30', tags: [], meta: [1] },
        ],
      },
    ]);
    expect(replay).toMatchObject({
      success: false,
      inserted: 0,
      updated: 1,
      errors: [{ recordIndex: 1, field: 'since', message: 'row not updated: date/time field value out of range: "2026-02-30"' }],
    });
    const [a1, g1] = await rows(t, 'acct', 'code');
    expect(a1).toMatchObject({ name: 'Acme 2', revenue: '11', tags: ['x', 'y,z'], meta: { k: 'v' } });
    expect((a1!.since as Date).toISOString()).toBe('2026-03-15T00:00:00.000Z');
    expect((a1!.seen_at as Date).toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(g1).toMatchObject({ name: 'Globex', revenue: '20' });
  });

  it("mode 'replace' empties the table first", async () => {
    const t = made.next();
    await publish(t, [accounts]);
    // A1 and G1 are not among its records: deleting them needs the same allowance as any data loss.
    expect(await publish(t, [{ ...accounts, mode: 'replace', records: [{ code: 'R1', name: 'Only' }] }], { allowDataChange: true })).toMatchObject({
      success: true,
      inserted: 1,
    });
    expect((await rows(t, 'acct')).map((r) => r.code)).toEqual(['R1']);
  });

  it('resolves lookups by the target seed externalId, by id, and multiple lookups as arrays; forward self references in a second pass', async () => {
    const t = made.next();
    const applied = await publish(t, [
      {
        object: 'contact',
        externalId: 'email',
        records: [
          { email: 'a@x', acct: 'A1', cats: ['Tools', 'Hardware'] },
          { email: 'g@x', acct: 'G1', cats: 'Tools' },
        ],
      },
      accounts,
      { object: 'cat', records: [{ name: 'Hardware', parent: 'Tools' }, { name: 'Tools' }] },
    ]);
    expect(applied).toMatchObject({ success: true, inserted: 6, errors: [] });
    const accts = new Map((await rows(t, 'acct')).map((r) => [r.code, r.id]));
    const cats = new Map((await rows(t, 'cat')).map((r) => [r.name, r]));
    expect((cats.get('Hardware') as { parent: string }).parent).toBe(cats.get('Tools')!.id);
    const contacts = await rows(t, 'contact', 'email');
    expect(contacts.map((c) => [c.email, c.acct, c.cats])).toEqual([
      ['a@x', accts.get('A1'), [cats.get('Tools')!.id, cats.get('Hardware')!.id]],
      ['g@x', accts.get('G1'), [cats.get('Tools')!.id]],
    ]);
    // By id when no natural key matches.
    expect(await publish(t, [{ object: 'contact', externalId: 'email', records: [{ email: 'i@x', acct: accts.get('G1') }] }])).toMatchObject({
      success: true,
      inserted: 1,
    });
  });

  it('matches a composite externalId of lookups, so a replay adds nothing', async () => {
    const t = made.next();
    const data = [
      accounts,
      { object: 'contact', externalId: 'email', records: [{ email: 'a@x' }] },
      {
        object: 'member',
        externalId: ['acct', 'contact'],
        records: [
          { acct: 'A1', contact: 'a@x', role: 'owner' },
          { acct: 'G1', contact: 'a@x', role: 'guest' },
        ],
      },
    ];
    expect(await publish(t, data)).toMatchObject({ success: true, inserted: 5 });
    expect(await publish(t, data)).toMatchObject({ success: true, inserted: 0, updated: 5 });
    expect(await rows(t, 'member')).toHaveLength(2);
  });

  it('reports unresolvable and wrapped lookup values per field and still writes the record', async () => {
    const t = made.next();
    const applied = await applyDirect(t, [
      accounts,
      {
        object: 'contact',
        externalId: 'email',
        records: [
          { email: 'a@x', acct: 'Nope' },
          { email: 'b@x', acct: { externalId: 'A1' } },
        ],
      },
    ]);
    expect(applied.inserted).toBe(4);
    expect(applied.errors).toEqual([
      {
        seed: 'contact',
        object: 'contact',
        recordIndex: 0,
        field: 'acct',
        message: 'lookup value "Nope" matches no "acct" row by code (nor by id); the field was left empty',
        dropped: true,
      },
      {
        seed: 'contact',
        object: 'contact',
        recordIndex: 1,
        field: 'acct',
        message: expect.stringMatching(/is not a key string; write the target's natural key/),
        dropped: true,
      },
    ]);
    expect((await rows(t, 'contact', 'email')).map((c) => c.acct)).toEqual([null, null]);
  });

  it('evaluates CEL values against the injected clock', async () => {
    const t = made.next();
    await publish(t, [
      {
        object: 'acct',
        externalId: 'code',
        records: [
          {
            code: 'C',
            since: { dialect: 'cel', source: 'daysAgo(2)' },
            seen_at: { dialect: 'cel', source: 'daysAgo(9) + duration("6h20m")' },
            tags: ['a', 'b'],
            meta: { k: [1] },
          },
        ],
      },
    ]);
    const [row] = await rows(t, 'acct');
    expect((row!.since as Date).toISOString()).toBe('2026-03-13T00:00:00.000Z');
    expect((row!.seen_at as Date).toISOString()).toBe('2026-03-06T06:20:00.000Z');
    expect(row).toMatchObject({ tags: ['a', 'b'], meta: { k: [1] } });
    expect((row!.created_at as Date).toISOString()).toBe(NOW.toISOString());
  });

  it('fails only the bad record, names the field and keeps the database message (incident #5: honest seedApplied)', async () => {
    const t = made.next();
    const applied = await applyDirect(t, [
      {
        object: 'acct',
        externalId: 'code',
        records: [
          { code: 'OK1', revenue: 1 },
          { code: 'BAD', revenue: 'abc' },
          { code: 'OK2', since: 'not a date' },
          { code: 'OK3', revenue: 3, bogus: 1 },
        ],
      },
    ]);
    expect(applied).toMatchObject({ success: false, inserted: 2, seeds: [{ seed: 'acct', records: 4, inserted: 2, failed: 2 }] });
    expect(applied.errors).toEqual([
      { seed: 'acct', object: 'acct', recordIndex: 1, field: 'revenue', message: 'row not written: invalid input syntax for type numeric: "abc"' },
      {
        seed: 'acct',
        object: 'acct',
        recordIndex: 2,
        field: 'since',
        message: expect.stringMatching(/row not written: (invalid input syntax for type date|date\/time field value out of range).*"not a date"/),
      },
      {
        seed: 'acct',
        object: 'acct',
        recordIndex: 3,
        field: 'bogus',
        message: 'object "acct" has no field "bogus"; the value was dropped (reported once per seed)',
        dropped: true,
      },
    ]);
    expect((await rows(t, 'acct', 'code')).map((r) => r.code)).toEqual(['OK1', 'OK3']);
  });

  it('writes a large seed in bulk and still names exactly the bad records among thousands', async () => {
    const t = made.next();
    const bad = new Set([7, 1_234, 4_999, 5_000, 8_765]);
    const records = Array.from({ length: 9_000 }, (_, i) => ({
      code: `C${i}`,
      name: `n${i}`,
      revenue: bad.has(i) ? `x${i}` : i,
      tags: i % 2 ? ['a', 'b,c', 'd"e'] : [],
      since: '2026-01-02',
      meta: { i },
    }));
    const applied = await applyDirect(t, [{ object: 'acct', externalId: 'code', records }]);
    expect(applied).toMatchObject({ inserted: 9_000 - bad.size, updated: 0, seeds: [{ inserted: 9_000 - bad.size, failed: bad.size }] });
    expect(applied.errors.map((e) => [e.recordIndex, e.field, e.message])).toEqual(
      [...bad].map((i) => [i, 'revenue', `row not written: invalid input syntax for type numeric: "x${i}"`]),
    );
    const written = await rows(t, 'acct', 'code');
    expect(written).toHaveLength(9_000 - bad.size);
    const one = written.find((r) => r.code === 'C1')!;
    expect({ ...one, revenue: Number(one.revenue), since: String(one.since).slice(0, 10) }).toMatchObject({
      name: 'n1',
      revenue: 1,
      tags: ['a', 'b,c', 'd"e'],
      meta: { i: 1 },
    });
    expect(written.find((r) => r.code === 'C2')!.tags).toEqual([]);
    // A replay matches every written row by its key: nothing is inserted twice.
    const again = await applySeeds(platform, {
      schema: tenantSchema(t),
      graph: buildGraph(collectStack({ objects: OBJECTS, data: [{ object: 'acct', externalId: 'code', records }] })).graph,
      now: NOW,
    });
    expect(again).toMatchObject({ inserted: 0, updated: 9_000 - bad.size, seeds: [{ failed: bad.size }] });
  });

  it('gives a record without a field the column default, as a VALUES list did, in the same bulk write as full records', async () => {
    const t = made.next();
    const scope = { tenant: t, package: 'app' };
    const objects = [{ name: 'item', fields: { name: { type: 'text' }, state: { type: 'select', options: ['open', 'done'], defaultValue: 'open' } } }];
    const data = [{ object: 'item', externalId: 'name', records: [{ name: 'a', state: 'done' }, { name: 'b' }, { name: 'c', state: null }] }];
    await stageDrafts(platform, scope, collectStack({ objects, data }, { draft: true }));
    const r = await publishPackage(platform, scope);
    expect(r).toMatchObject({ outcome: 'published', seedApplied: { inserted: 3, errors: [] } });
    expect((await rows(t, 'item', 'name')).map((x) => [x.name, x.state])).toEqual([
      ['a', 'done'],
      ['b', 'open'],
      ['c', null],
    ]);
  });

  it('does not apply a seed outside the environment, and says why', async () => {
    const t = made.next();
    const applied = await publish(t, [{ ...accounts, env: ['prod'] }]);
    expect(applied).toMatchObject({
      success: true,
      inserted: 0,
      seeds: [{ applied: false, reason: expect.stringMatching(/env \(prod\) does not include "dev"/) }],
    });
  });

  it('refuses a seed that would pass the records limit before any of its rows is written, and writes the seeds within it', async () => {
    const t = made.next();
    const cats = { object: 'cat', externalId: 'name', records: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] };
    const contacts = { object: 'contact', externalId: 'email', records: [{ email: 'x@a', acct: 'A1' }] };
    // 3 + 2 records fill a limit of 5 exactly; the contact seed's one record would pass it.
    const applied = await publish(t, [cats, accounts, contacts], { maxSeedRecords: 5 });
    expect(applied).toMatchObject({ success: false, inserted: 5, updated: 0, errorsOmitted: 0 });
    expect(applied.seeds.map((s) => [s.object, s.applied, s.inserted, s.failed])).toEqual([
      ['acct', true, 2, 0],
      ['cat', true, 3, 0],
      ['contact', false, 0, 1],
    ]);
    expect(applied.errors).toEqual([
      {
        seed: applied.seeds[2]!.seed,
        object: 'contact',
        recordIndex: -1,
        message: 'not applied: 1 records would pass the limit of 5 seed records per publish',
      },
    ]);
    expect(await rows(t, 'cat')).toHaveLength(3);
    expect(await rows(t, 'acct')).toHaveLength(2);
    expect(await rows(t, 'contact')).toEqual([]);
    // The writer on its own, through its option: a seed larger than the whole limit writes nothing.
    const direct = await applySeeds(platform, {
      schema: tenantSchema(t),
      graph: buildGraph(collectStack({ objects: OBJECTS, data: [{ ...contacts, records: [{ email: 'y@a' }, { email: 'z@a' }] }] })).graph,
      now: NOW,
      maxSeedRecords: 1,
    });
    expect(direct).toMatchObject({ success: false, inserted: 0, seeds: [{ applied: false, failed: 2 }] });
    expect(direct.errors[0]!.message).toBe('not applied: 2 records would pass the limit of 1 seed records per publish');
    expect(await rows(t, 'contact')).toEqual([]);
  });
});
