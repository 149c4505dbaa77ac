import { buildGraph, collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, tenants } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { stageDrafts } from './run-drafts.ts';
import { type PublishResult, publishPackage } from './run-publish.ts';
import { applySeeds, type SeedApplied } from './run-seeds.ts';

// What ObjectStack refuses of a seed record (its record validator and its unique index), the seed
// writer refuses too, one record at a time: L3 then sees the rows production would have.
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

async function publish(tenant: string, doc: unknown): Promise<SeedApplied> {
  const scope = { tenant, package: 'app' };
  await stageDrafts(platform, scope, collectStack(doc, { draft: true }));
  const r: PublishResult = await publishPackage(platform, scope);
  if (r.outcome !== 'published') throw new Error(`not published: ${JSON.stringify(r)}`);
  return r.seedApplied;
}
/**
 * The seed writer on its own, past the publish gate (L1's seed_value_invalid refuses these records
 * before publish; the writer must refuse them by itself too, since a replay or a changed field can
 * bring them past a gate that passed): the objects are published, then the seeds applied directly.
 */
async function applyDirect(tenant: string, doc: { objects: unknown[]; data: unknown[] }): Promise<SeedApplied> {
  await publish(tenant, { objects: doc.objects });
  const { graph } = buildGraph(collectStack(doc));
  return applySeeds(platform, { schema: tenantSchema(tenant), graph, now: NOW });
}
const names = async (tenant: string, table: string) =>
  (await sql<{ name: string }>`select name from ${sql.id(tenantSchema(tenant), table)} order by name`.execute(platform.db)).rows.map((r) => r.name);
const cel = (source: string) => ({ dialect: 'cel', source });

describe('a bad record fails that record, not the seed or the run', () => {
  it('bad CEL in one record: that record is not written, its seed and the next seed are', async () => {
    const t = made.next();
    const applied = await publish(t, {
      objects: [
        { name: 'a_task', fields: { name: { type: 'text' }, due: { type: 'date' } } },
        { name: 'b_note', fields: { name: { type: 'text' } } },
      ],
      data: [
        {
          object: 'a_task',
          externalId: 'name',
          records: [
            { name: 't1', due: cel('daysAgo(2)') },
            { name: 't2', due: cel('daysAgo(99999999999)') },
            { name: 't3', due: cel('frobnicate(1)') },
            { name: 't4', due: cel('daysFromNow(3)') },
          ],
        },
        { object: 'b_note', externalId: 'name', records: [{ name: 'n1' }] },
      ],
    });
    expect(applied).toEqual({
      success: false,
      inserted: 3,
      updated: 0,
      skipped: 0,
      errors: [
        { seed: 'a_task', object: 'a_task', recordIndex: 1, field: 'due', message: 'row not written: the date is out of range in CEL "daysAgo(99999999999)"' },
        {
          seed: 'a_task',
          object: 'a_task',
          recordIndex: 2,
          field: 'due',
          message:
            'row not written: unsupported function frobnicate() (bvl evaluates daysAgo, daysFromNow, today, now, duration, timestamp, date) in CEL "frobnicate(1)"',
        },
      ],
      errorsOmitted: 0,
      seeds: [
        { seed: 'a_task', object: 'a_task', mode: 'upsert', records: 4, applied: true, inserted: 2, updated: 0, skipped: 0, failed: 2 },
        { seed: 'b_note', object: 'b_note', mode: 'upsert', records: 1, applied: true, inserted: 1, updated: 0, skipped: 0, failed: 0 },
      ],
    });
    expect(await names(t, 'a_task')).toEqual(['t1', 't4']);
    expect(await names(t, 'b_note')).toEqual(['n1']);
  });
});

describe('the write contract (ObjectStack record validator, ADR-0113)', () => {
  const contact = {
    name: 'contact',
    fields: {
      name: { type: 'text', required: true, maxLength: 5 },
      tier: { type: 'text', required: true, defaultValue: 'free' },
      tags: { type: 'multiselect', required: true, options: ['a', 'b'] },
      code: { type: 'text', unique: true },
      total: { type: 'autonumber', required: true },
    },
  };

  it('refuses an insert without a required value, over maxLength, or duplicating a unique value; each record alone', async () => {
    const t = made.next();
    const applied = await applyDirect(t, {
      objects: [contact],
      data: [
        {
          object: 'contact',
          externalId: 'name',
          mode: 'insert',
          records: [
            { name: 'ok', tags: ['a'], code: 'C1' },
            { name: 'toolong', tags: ['a'] },
            { tags: ['a'] },
            { name: 'empty', tags: [] },
            { name: 'dup', tags: ['b'], code: 'C1' },
            { name: 'blank', tier: null, tags: ['a'] },
          ],
        },
      ],
    });
    expect(applied.inserted).toBe(1);
    expect(applied.errors.map((e) => [e.recordIndex, e.field, e.message])).toEqual([
      [1, 'name', 'row not written: the value of field "name" is 7 characters long; its maxLength is 5 (ObjectStack rejects the write)'],
      [2, 'name', 'row not written: field "name" is required and the record gives it no value (ObjectStack rejects the insert)'],
      [3, 'tags', 'row not written: field "tags" is required and the record gives it no value (ObjectStack rejects the insert)'],
      [
        4,
        'code',
        expect.stringMatching(/^row not written: duplicate key value violates unique constraint "uq_[0-9a-f]+" \(Key \(code\)=\(C1\) already exists\.\)$/),
      ],
      [5, 'tier', 'row not written: field "tier" is required and the record gives it no value (ObjectStack rejects the insert)'],
    ]);
    expect(await names(t, 'contact')).toEqual(['ok']);
  });

  it('lets an update leave a required field out, but not clear it', async () => {
    const t = made.next();
    const seed = (records: unknown[]) => ({ objects: [contact], data: [{ object: 'contact', externalId: 'name', records }] });
    expect((await applyDirect(t, seed([{ name: 'x', tags: ['a'] }]))).inserted).toBe(1);
    const applied = await applyDirect(t, seed([{ name: 'x', tags: [] }]));
    expect(applied.errors.map((e) => [e.recordIndex, e.field, e.message])).toEqual([
      [0, 'tags', 'row not updated: field "tags" is required and the record clears it (ObjectStack rejects the update)'],
    ]);
    // The field left out is not touched.
    expect((await applyDirect(t, seed([{ name: 'x' }]))).errors).toEqual([]);
  });
});

describe('a list for a single-value field is refused before publish and by the writer', () => {
  const objects = [
    { name: 'acct', fields: { name: { type: 'text' } } },
    { name: 'deal', fields: { name: { type: 'text' }, acct: { type: 'lookup', reference: 'acct' }, stage: { type: 'select', options: ['a', 'b'] } } },
  ];
  const data = [
    { object: 'acct', externalId: 'name', records: [{ name: 'A' }] },
    {
      object: 'deal',
      externalId: 'name',
      records: [
        { name: 'ok', acct: 'A', stage: 'a' },
        { name: 'list_lookup', acct: ['A'] },
        { name: 'list_select', stage: ['a'] },
      ],
    },
  ];

  it('the gate refuses the publish: seed_value_invalid at each value, nothing written', async () => {
    const t = made.next();
    const scope = { tenant: t, package: 'app' };
    await stageDrafts(platform, scope, collectStack({ objects, data }, { draft: true }));
    const r = await publishPackage(platform, scope);
    expect(r.outcome === 'refused' && r.issues.map((i) => [i.code, i.artifact.name, i.path])).toEqual([
      ['seed_value_invalid', 'deal', '/records/1/acct'],
      ['seed_value_invalid', 'deal', '/records/2/stage'],
    ]);
  });

  it('the writer on its own: each such record fails whole (it was written with the lookup empty, or the text ["a"])', async () => {
    const t = made.next();
    const applied = await applyDirect(t, { objects, data });
    expect(applied.seeds.map((s) => [s.seed, s.inserted, s.failed])).toEqual([
      ['acct', 1, 0],
      ['deal', 1, 2],
    ]);
    expect(applied.errors.map((e) => [e.recordIndex, e.field, e.message])).toEqual([
      [1, 'acct', 'row not written: a list was given to the single-value lookup "acct"; write one natural-key string (or make the field multiple)'],
      [2, 'stage', 'row not written: a list was given to the single-value select "stage"; write one option value (or make the field multiple)'],
    ]);
    expect(await names(t, 'deal')).toEqual(['ok']);
  });
});
