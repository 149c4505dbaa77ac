import { buildGraph, collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestPlatform } from '../test/test-platform.ts';
import { diffSchema } from './diff-schema.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { planTables } from './plan-tables.ts';
import { readExistingSchema } from './run-ddl.ts';
import { stageDrafts } from './run-drafts.ts';
import { type PublishOptions, type PublishResult, publishPackage } from './run-publish.ts';

// Republishing over rows that are already there: every change that would lose or change them is
// refused with the rows counted, and with allowDataChange is migrated (and said so).
let platform: Platform;
const made = useTestPlatform(
  (p) => {
    platform = p;
  },
  () => new Date('2026-03-15T10:00:00Z'),
);

type Fields = Record<string, Record<string, unknown>>;
const obj = (name: string, fields: Fields) => ({ name, fields: { name: { type: 'text' }, ...fields } });

async function publish(scope: { tenant: string; package: string }, doc: unknown, options: PublishOptions = {}): Promise<PublishResult> {
  await stageDrafts(platform, scope, collectStack(doc, { draft: true }));
  return publishPackage(platform, scope, options);
}
/** Writes rows straight into the table (as the app's users would; a seed would be rewritten on the next publish). */
const insert = (tenant: string, table: string, columns: string[], rows: unknown[][]) =>
  sql`insert into ${sql.id(tenantSchema(tenant), table)} (${sql.join(columns.map((c) => sql.id(c)))}) values ${sql.join(
    rows.map((r) => sql`(${sql.join(r)})`),
  )}`.execute(platform.db);
const read = async (tenant: string, table: string, column: string) =>
  (
    await sql<{ name: string; v: unknown }>`select name, ${sql.id(column)} as v from ${sql.id(tenantSchema(tenant), table)} order by name`.execute(platform.db)
  ).rows.map((r) => [r.name, r.v]);
/** Each foreign key of a table: its column and whether PostgreSQL has validated it. */
const validated = async (tenant: string, table: string) =>
  (
    await sql<{ col: string; ok: boolean }>`
      select a.attname as col, c.convalidated as ok from pg_catalog.pg_constraint c
      join pg_catalog.pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where c.conrelid = ${`${tenantSchema(tenant)}.${table}`}::regclass and c.contype = 'f' order by 1`.execute(platform.db)
  ).rows.map((r) => [r.col, r.ok]);
const codes = (r: PublishResult) => (r.outcome === 'refused' || r.outcome === 'published' ? r.issues.map((i) => [i.code, i.severity, i.message]) : r);

/**
 * Each case: a field as first published, rows written into it, the field as republished, the
 * issue expected without the flag, the values after a publish with it.
 */
const CASES: Array<{
  title: string;
  from: Record<string, unknown>;
  to: Record<string, unknown>;
  rows: unknown[][];
  cast?: string;
  refused: string;
  changed: string;
  after: unknown[];
  extra?: Fields;
}> = [
  {
    title: 'datetime → date drops the time of day',
    from: { type: 'datetime' },
    to: { type: 'date' },
    rows: [
      ['a', '2026-03-01T09:30:00Z'],
      ['b', '2026-03-02T00:00:00Z'],
      ['c', null],
    ],
    cast: 'timestamptz',
    refused:
      'Field "f" of object "item" changes from datetime to date, and 1 of its 3 rows holds a time of day other than midnight UTC: converting would lose the time of day; e.g. "2026-03-01 09:30:00+00" becomes "2026-03-01". bvl refused the publish so that no data changes by accident.',
    changed:
      'Field "f" of object "item" changes from datetime to date, and 1 of its 3 rows holds a time of day other than midnight UTC: the conversion lost the time of day in those rows; e.g. "2026-03-01 09:30:00+00" becomes "2026-03-01", as allowDataChange allowed.',
    after: [
      ['a', '2026-03-01'],
      ['b', '2026-03-02'],
      ['c', null],
    ],
  },
  {
    title: 'multiselect → select keeps one value, not the JSON of the list',
    from: { type: 'multiselect', options: ['x', 'y'] },
    to: { type: 'select', options: ['x', 'y'] },
    rows: [
      ['a', ['x', 'y']],
      ['b', ['y']],
      ['c', []],
    ],
    cast: 'text[]',
    refused:
      'Field "f" of object "item" changes from multiselect to select, and 1 of its 3 rows holds more than one value: converting would lose every value but the first; e.g. "{x,y}" becomes "x". bvl refused the publish so that no data changes by accident.',
    changed:
      'Field "f" of object "item" changes from multiselect to select, and 1 of its 3 rows holds more than one value: the conversion lost every value but the first in those rows; e.g. "{x,y}" becomes "x", as allowDataChange allowed.',
    after: [
      ['a', 'x'],
      ['b', 'y'],
      ['c', null],
    ],
  },
  {
    title: 'text → number keeps what parses and counts what does not',
    from: { type: 'text' },
    to: { type: 'number' },
    rows: [
      ['a', '12.5'],
      ['b', '12,50'],
      ['c', 'abc'],
    ],
    refused:
      'Field "f" of object "item" changes from text to number, and 2 of its 3 rows hold values that are not valid numeric: converting would lose those values (the rows are left empty); e.g. "12,50" becomes empty. bvl refused the publish so that no data changes by accident.',
    changed:
      'Field "f" of object "item" changes from text to number, and 2 of its 3 rows hold values that are not valid numeric: the conversion lost those values (the rows are left empty) in those rows; e.g. "12,50" becomes empty, as allowDataChange allowed.',
    after: [
      ['a', '12.5'],
      ['b', null],
      ['c', null],
    ],
  },
  {
    title: 'a removed option is counted in the rows that hold it',
    from: { type: 'select', options: ['open', 'won', 'lost'] },
    to: { type: 'select', options: ['open', 'won'] },
    rows: [
      ['a', 'lost'],
      ['b', 'won'],
      ['c', 'lost'],
    ],
    refused:
      'Field "f" of object "item" no longer offers option "lost", and 2 of its 3 rows hold it: the rows would keep values the field no longer offers. bvl refused the publish so that no data changes by accident.',
    changed:
      'Field "f" of object "item" no longer offers option "lost", and 2 of its 3 rows hold it: the removed option values were cleared from those rows, as allowDataChange allowed.',
    after: [
      ['a', null],
      ['b', 'won'],
      ['c', null],
    ],
  },
  {
    title: 'a removed option of a multiselect leaves the other values in place',
    from: { type: 'multiselect', options: ['x', 'y', 'z'] },
    to: { type: 'multiselect', options: ['x', 'z'] },
    rows: [
      ['a', ['x', 'y', 'z']],
      ['b', ['z']],
    ],
    cast: 'text[]',
    refused:
      'Field "f" of object "item" no longer offers option "y", and 1 of its 2 rows holds it: the rows would keep values the field no longer offers. bvl refused the publish so that no data changes by accident.',
    changed:
      'Field "f" of object "item" no longer offers option "y", and 1 of its 2 rows holds it: the removed option values were cleared from those rows, as allowDataChange allowed.',
    after: [
      ['a', ['x', 'z']],
      ['b', ['z']],
    ],
  },
];

describe('republish over existing rows', () => {
  it.each(CASES)('$title: refused without allowDataChange (rows intact), migrated with it', async (c) => {
    const scope = { tenant: made.next(), package: 'app' };
    expect((await publish(scope, { objects: [obj('item', { f: c.from })] })).outcome).toBe('published');
    const values = c.rows.map(([name, v]) => [name, v === null ? null : sql`${v}::${sql.raw(c.cast ?? 'text')}`]);
    await insert(scope.tenant, 'item', ['name', 'f'], values);
    const before = await read(scope.tenant, 'item', 'f');

    const refused = await publish(scope, { objects: [obj('item', { f: c.to })] });
    expect(refused.outcome).toBe('refused');
    expect(codes(refused)).toEqual([['data_loss_on_republish', 'error', c.refused]]);
    if (refused.outcome === 'refused')
      expect(refused.issues[0]).toMatchObject({
        layer: 'runtime',
        artifact: { type: 'object', name: 'item' },
        ref: { type: 'object', name: 'item', member: 'f' },
        path: '/fields/f',
        fix: expect.stringContaining('--allow-data-change'),
      });
    expect(await read(scope.tenant, 'item', 'f')).toEqual(before);

    const allowed = await publish(scope, { objects: [obj('item', { f: c.to })] }, { allowDataChange: true });
    expect(allowed.outcome).toBe('published');
    expect(codes(allowed)).toEqual([['data_changed_on_republish', 'warning', c.changed]]);
    const after = await read(scope.tenant, 'item', 'f');
    expect(after.map(([n, v]) => [n, v instanceof Date ? v.toISOString().slice(0, 10) : v])).toEqual(c.after);
  });

  it('multiple → single lookup keeps the first id under a foreign key that holds', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const acct = obj('acct', {});
    const deal = (owners: Record<string, unknown>) => obj('deal', { owners });
    const seed = { object: 'acct', externalId: 'name', records: [{ name: 'A' }, { name: 'B' }] };
    expect((await publish(scope, { objects: [acct, deal({ type: 'lookup', reference: 'acct', multiple: true })], data: [seed] })).outcome).toBe('published');
    const ids = (await sql<{ id: string }>`select id from ${sql.id(tenantSchema(scope.tenant), 'acct')} order by name`.execute(platform.db)).rows.map(
      (r) => r.id,
    );
    await insert(scope.tenant, 'deal', ['name', 'owners'], [['d1', sql`${ids}::text[]`]]);
    const single = deal({ type: 'lookup', reference: 'acct' });
    const refused = await publish(scope, { objects: [acct, single], data: [seed] });
    expect(codes(refused)).toEqual([
      [
        'data_loss_on_republish',
        'error',
        `Field "owners" of object "deal" changes from a multiple lookup to a single one, and 1 of its 1 row holds more than one value: converting would lose every value but the first; e.g. ${JSON.stringify(`${`{${ids.join(',')}}`.slice(0, 59)}…`)} becomes ${JSON.stringify(ids[0])}. bvl refused the publish so that no data changes by accident.`,
      ],
    ]);
    const allowed = await publish(scope, { objects: [acct, single], data: [seed] }, { allowDataChange: true });
    expect(allowed.outcome).toBe('published');
    expect(await read(scope.tenant, 'deal', 'owners')).toEqual([['d1', ids[0]]]);
    // The id is a real row id, not JSON text: it joins, and the foreign key is in place.
    const joined = await sql<{
      n: string;
    }>`select a.name as n from ${sql.id(tenantSchema(scope.tenant), 'deal')} d join ${sql.id(tenantSchema(scope.tenant), 'acct')} a on a.id = d.owners`.execute(
      platform.db,
    );
    expect(joined.rows).toEqual([{ n: 'A' }]);
    const fk = (await readExistingSchema(platform.db, tenantSchema(scope.tenant))).tables.get('deal')!.foreignKeys;
    expect(fk.map((f) => [f.column, f.table])).toEqual([['owners', 'acct']]);
    // Validated after the conversion: every row holds, and PostgreSQL knows it.
    expect(await validated(scope.tenant, 'deal')).toEqual([['owners', true]]);
  });

  it('multiple → single lookup whose first id points nowhere: refused, or cleared with allowDataChange; the foreign key is validated', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const acct = obj('acct', {});
    const deal = (owners: Record<string, unknown>) => obj('deal', { owners });
    const seed = { object: 'acct', externalId: 'name', records: [{ name: 'A' }] };
    expect((await publish(scope, { objects: [acct, deal({ type: 'lookup', reference: 'acct', multiple: true })], data: [seed] })).outcome).toBe('published');
    const [a] = (await sql<{ id: string }>`select id from ${sql.id(tenantSchema(scope.tenant), 'acct')}`.execute(platform.db)).rows.map((r) => r.id);
    // A list has no foreign key: d2's id points at an acct row that was deleted long ago.
    await insert(
      scope.tenant,
      'deal',
      ['name', 'owners'],
      [
        ['d1', sql`${[a]}::text[]`],
        ['d2', sql`${['gone']}::text[]`],
      ],
    );
    const single = deal({ type: 'lookup', reference: 'acct' });
    const refused = await publish(scope, { objects: [acct, single], data: [seed] });
    expect(codes(refused)).toEqual([
      [
        'data_loss_on_republish',
        'error',
        'Field "owners" of object "deal" becomes a single lookup to "acct", and 1 of its 2 rows holds a first id no "acct" row has (e.g. "gone"): the foreign key cannot hold those rows, and clearing them loses the values. bvl refused the publish so that no data changes by accident.',
      ],
    ]);
    const allowed = await publish(scope, { objects: [acct, single], data: [seed] }, { allowDataChange: true });
    expect(codes(allowed)).toEqual([
      [
        'data_changed_on_republish',
        'warning',
        'Field "owners" of object "deal" becomes a single lookup to "acct", and 1 of its 2 rows holds a first id no "acct" row has (e.g. "gone"): those ids were cleared, so the foreign key holds every row, as allowDataChange allowed.',
      ],
    ]);
    expect(await read(scope.tenant, 'deal', 'owners')).toEqual([
      ['d1', a],
      ['d2', null],
    ]);
    expect(await validated(scope.tenant, 'deal')).toEqual([['owners', true]]);
  });

  it('a lookup added to a table with rows gets a validated foreign key', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await publish(scope, { objects: [obj('acct', {}), obj('deal', {})] });
    await insert(scope.tenant, 'deal', ['name'], [['d1']]);
    expect((await publish(scope, { objects: [obj('acct', {}), obj('deal', { owner: { type: 'lookup', reference: 'acct' } })] })).outcome).toBe('published');
    expect(await validated(scope.tenant, 'deal')).toEqual([['owner', true]]);
  });

  it('a lossless change needs no flag: text holding numbers becomes a number, a select becomes a multiselect', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await publish(scope, { objects: [obj('item', { n: { type: 'text' }, s: { type: 'select', options: ['a'] } })] });
    await insert(scope.tenant, 'item', ['name', 'n', 's'], [['x', '007', 'a']]);
    const r = await publish(scope, { objects: [obj('item', { n: { type: 'number' }, s: { type: 'multiselect', options: ['a'] } })] });
    expect(codes(r)).toEqual([]);
    expect(await read(scope.tenant, 'item', 'n')).toEqual([['x', '7']]);
    expect(await read(scope.tenant, 'item', 's')).toEqual([['x', ['a']]]);
  });
});

describe('constraints over existing rows', () => {
  it('unique: duplicates already there refuse the publish (the flag cannot build the index); unique rows get the index', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await publish(scope, { objects: [obj('acct', { code: { type: 'text' } })] });
    await insert(
      scope.tenant,
      'acct',
      ['name', 'code'],
      [
        ['a', 'A1'],
        ['b', 'A1'],
        ['c', 'A1'],
        ['d', 'B2'],
        ['e', null],
        ['f', null],
      ],
    );
    const unique = { objects: [obj('acct', { code: { type: 'text', unique: true } })] };
    for (const options of [{}, { allowDataChange: true }]) {
      const r = await publish(scope, unique, options);
      expect(codes(r)).toEqual([
        [
          'rows_violate_constraint',
          'error',
          'Field "code" of object "acct" is declared unique, but 3 of its 6 rows share 1 value (e.g. "A1" in 3 rows), so the unique index cannot be built. bvl refused the publish.',
        ],
      ]);
    }
    await sql`update ${sql.id(tenantSchema(scope.tenant), 'acct')} set code = name`.execute(platform.db);
    expect((await publish(scope, unique)).outcome).toBe('published');
    await expect(insert(scope.tenant, 'acct', ['name', 'code'], [['g', 'a']])).rejects.toThrow(/duplicate key value violates unique constraint "uq_/);
    // Dropping `unique` drops the index again.
    expect((await publish(scope, { objects: [obj('acct', { code: { type: 'text' } })] })).outcome).toBe('published');
    await insert(scope.tenant, 'acct', ['name', 'code'], [['g', 'a']]);
  });

  it('storage.notNull: rows with no value refuse it; a new field with a defaultValue fills them', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await publish(scope, { objects: [obj('acct', { tier: { type: 'text' } })] });
    await insert(
      scope.tenant,
      'acct',
      ['name', 'tier'],
      [
        ['a', 'gold'],
        ['b', null],
      ],
    );
    const r = await publish(scope, { objects: [obj('acct', { tier: { type: 'text', storage: { notNull: true } } })] });
    expect(codes(r)).toEqual([
      [
        'rows_violate_constraint',
        'error',
        'Field "tier" of object "acct" declares storage.notNull, but 1 of its 2 rows has no value, so the column cannot be made NOT NULL. bvl refused the publish.',
      ],
    ]);
    const added = await publish(scope, {
      objects: [obj('acct', { tier: { type: 'text' }, region: { type: 'text', defaultValue: 'emea', storage: { notNull: true } } })],
    });
    expect(codes(added)).toEqual([]);
    expect(await read(scope.tenant, 'acct', 'region')).toEqual([
      ['a', 'emea'],
      ['b', 'emea'],
    ]);
    expect((await readExistingSchema(platform.db, tenantSchema(scope.tenant))).tables.get('acct')!.notNull).toContain('region');
  });

  it('defaultValue: a republish sets the changed default on the column, and drops it when the field has none', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const withDefaults = (tier: unknown, score: unknown, vip: unknown) => ({
      objects: [
        obj('acct', {
          tier: { type: 'text', defaultValue: tier },
          score: { type: 'number', defaultValue: score },
          vip: { type: 'boolean', defaultValue: vip },
        }),
      ],
    });
    const insertNamed = async (name: string) => {
      await insert(scope.tenant, 'acct', ['name'], [[name]]);
      const row = await sql<{ tier: string | null; score: string | null; vip: boolean | null }>`
        select tier, score::text as score, vip from ${sql.id(tenantSchema(scope.tenant), 'acct')} where name = ${name}`.execute(platform.db);
      return row.rows[0];
    };
    expect(codes(await publish(scope, withDefaults("it's A", -5, true)))).toEqual([]);
    expect(await insertNamed('a')).toEqual({ tier: "it's A", score: '-5', vip: true });
    expect(codes(await publish(scope, withDefaults('b\\B', 2.5, false)))).toEqual([]);
    expect(await insertNamed('b')).toEqual({ tier: 'b\\B', score: '2.5', vip: false });
    // The rows already there keep their values; an unchanged default is no step at all.
    expect(await read(scope.tenant, 'acct', 'tier')).toEqual([
      ['a', "it's A"],
      ['b', 'b\\B'],
    ]);
    const existing = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    expect(diffSchema(planTables(buildGraph(collectStack(withDefaults('b\\B', 2.5, false))).graph).tables, existing).filter((s) => s.table === 'acct')).toEqual(
      [],
    );
    expect(codes(await publish(scope, { objects: [obj('acct', { tier: { type: 'text' }, score: { type: 'number' }, vip: { type: 'boolean' } })] }))).toEqual(
      [],
    );
    expect(await insertNamed('c')).toEqual({ tier: null, score: null, vip: null });
  });
});

describe('mode "replace"', () => {
  it('deleting rows no record recreates is data loss: refused with the rows counted, unless allowDataChange', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const doc = { objects: [obj('tag', {})], data: [{ object: 'tag', mode: 'replace', records: [{ name: 'a' }, { name: 'b' }] }] };
    const first = await publish(scope, doc);
    expect(codes(first)).toEqual([]);
    // Replacing only its own rows is a warning.
    const own = await publish(scope, doc);
    expect(codes(own)).toEqual([
      [
        'seed_replace_deletes_rows',
        'warning',
        'Seed "tag" uses mode "replace": this publish deletes all 2 rows of object "tag" and writes its 2 records again, with new ids (lookups to the old rows are cleared).',
      ],
    ]);
    await insert(scope.tenant, 'tag', ['name'], [['user-added']]);
    const refused = await publish(scope, doc);
    expect(codes(refused)).toEqual([
      [
        'data_loss_on_republish',
        'error',
        'Seed "tag" uses mode "replace": this publish would delete all 3 rows of object "tag" and write its 2 records again, and 1 row is not among the seed\'s records (added outside the seed): it would be gone. bvl refused the publish so that no data is lost by accident.',
      ],
    ]);
    expect(refused.outcome === 'refused' && refused.issues[0]).toMatchObject({ artifact: { type: 'seed', name: 'tag' }, path: '/mode' });
    expect((await read(scope.tenant, 'tag', 'name')).map(([n]) => n).sort()).toEqual(['a', 'b', 'user-added']);
    const again = await publish(scope, doc, { allowDataChange: true });
    expect(again.outcome).toBe('published');
    expect(codes(again)).toEqual([
      [
        'seed_replace_deletes_rows',
        'warning',
        'Seed "tag" uses mode "replace": this publish deletes all 3 rows of object "tag" and writes its 2 records again, with new ids (lookups to the old rows are cleared); 1 deleted row is not among the seed\'s records (added outside the seed) and will be gone.',
      ],
    ]);
    if (again.outcome === 'published') expect(again.seedApplied.seeds[0]).toMatchObject({ deleted: 3, inserted: 2 });
  });

  it('without a single externalId the rows past the records are counted as at least that many', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const doc = {
      objects: [obj('tag', { code: { type: 'text' } })],
      data: [{ object: 'tag', mode: 'replace', externalId: ['name', 'code'], records: [{ name: 'a', code: '1' }] }],
    };
    await publish(scope, doc);
    await insert(scope.tenant, 'tag', ['name'], [['x'], ['y']]);
    const refused = await publish(scope, doc);
    expect(refused.outcome === 'refused' && refused.issues.map((i) => i.message)).toEqual([
      'Seed "tag" uses mode "replace": this publish would delete all 3 rows of object "tag" and write its 1 record again, and at least 2 rows are not among the seed\'s records (added outside the seed; without a single externalId bvl cannot tell which): they would be gone. bvl refused the publish so that no data is lost by accident.',
    ]);
  });
});
