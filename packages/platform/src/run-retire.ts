import { storedRecordsOf } from '@bvl/metadata';
import { type Kysely, sql } from 'kysely';
import type { BvlDatabase } from './database.ts';
import type { OverlayRow } from './overlay-of.ts';
import type { StoredSeed } from './run-drafts.ts';
import type { PackageScope } from './scope.ts';

/** An artifact a publish retired (a tombstone), and what happened to its data. */
export interface RetiredItem {
  readonly type: string;
  readonly name: string;
  /** `dropped` table, `deleted` n seed rows, or `kept` (no dropData, or rows not matchable by key). */
  readonly data: 'none' | 'kept' | 'dropped' | { readonly deleted: number };
}

/**
 * Retires what the tombstones name: their active metadata rows go; with `dropData`, a retired
 * object's table is dropped (after the DDL, so nothing re-creates it) and a retired seed's rows are
 * deleted by its single-field natural key.
 */
export async function retire(
  trx: Kysely<BvlDatabase>,
  scope: PackageScope,
  schema: string,
  slots: ReadonlyArray<{ type: string; name: string }>,
  active: readonly OverlayRow[],
  dropData: boolean,
): Promise<RetiredItem[]> {
  const out: RetiredItem[] = [];
  for (const s of slots) {
    // A stored seed's keys are read from its row: its rows go before it does.
    const seedData = s.type === 'seed' && dropData ? await deleteSeedRows(trx, scope.tenant, schema, active, s.name) : 'kept';
    await trx
      .deleteFrom('bvl.metadata_items')
      .where('tenant_id', '=', scope.tenant)
      .where('package', '=', scope.package)
      .where('type', '=', s.type)
      .where('name', '=', s.name)
      .where('state', '=', 'active')
      .execute();
    if (s.type === 'object') {
      if (dropData) await sql`drop table if exists ${sql.id(schema, s.name)} cascade`.execute(trx);
      out.push({ ...s, data: dropData ? 'dropped' : 'kept' });
    } else if (s.type === 'seed') {
      out.push({ ...s, data: seedData });
    } else out.push({ ...s, data: 'none' });
  }
  return out;
}

async function deleteSeedRows(
  trx: Kysely<BvlDatabase>,
  tenant: string,
  schema: string,
  active: readonly OverlayRow[],
  name: string,
): Promise<RetiredItem['data']> {
  const row = active.find((r) => r.type === 'seed' && r.name === name);
  const body = row?.body as { object?: unknown; externalId?: unknown; key?: unknown; records?: unknown; data?: unknown; rows?: unknown } | undefined;
  const key = body?.externalId ?? body?.key ?? 'name';
  const records = body?.records ?? body?.data ?? body?.rows;
  // A large seed's records stay in the store (see readOverlayRows' storedSeeds): its keys are read there.
  const stored = storedRecordsOf(records)?.handle as StoredSeed | undefined;
  if (typeof body?.object !== 'string' || typeof key !== 'string' || (!Array.isArray(records) && !stored)) return 'kept';
  const list = (k: string) => sql`nullif(m.body -> ${k}, 'null'::jsonb)`;
  const values: readonly string[] | ReturnType<typeof sql> = stored
    ? sql`select e.v ->> ${key} from bvl.metadata_items m
          cross join lateral jsonb_array_elements(coalesce(${list('records')}, ${list('data')}, ${list('rows')})) as e(v)
          where m.tenant_id = ${tenant} and m.package = ${stored.package} and m.type = 'seed' and m.name = ${stored.name}
            and m.state = ${stored.state} and m.content_hash = ${stored.contentHash} and jsonb_typeof(e.v -> ${key}) = 'string'`
    : (records as unknown[]).flatMap((r) =>
        r && typeof r === 'object' && typeof (r as Record<string, unknown>)[key] === 'string' ? [(r as Record<string, string>)[key]!] : [],
      );
  if (Array.isArray(values) && values.length === 0) return { deleted: 0 };
  const exists = await sql<{ n: number }>`
    select count(*)::int as n from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relname = ${body.object} and a.attname = ${key} and a.attnum > 0 and not a.attisdropped`.execute(trx);
  if (exists.rows[0]?.n !== 1) return 'kept';
  const r = Array.isArray(values)
    ? await sql`delete from ${sql.id(schema, body.object)} where ${sql.id(key)}::text = any(${values}::text[])`.execute(trx)
    : await sql`delete from ${sql.id(schema, body.object)} where ${sql.id(key)}::text in (${values})`.execute(trx);
  return { deleted: Number(r.numAffectedRows ?? 0) };
}
