import { type Kysely, sql } from 'kysely';
import type { BvlDatabase } from './database.ts';
import type { OverlayRow } from './overlay-of.ts';
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
      out.push({ ...s, data: dropData ? await deleteSeedRows(trx, schema, active, s.name) : 'kept' });
    } else out.push({ ...s, data: 'none' });
  }
  return out;
}

async function deleteSeedRows(trx: Kysely<BvlDatabase>, schema: string, active: readonly OverlayRow[], name: string): Promise<RetiredItem['data']> {
  const row = active.find((r) => r.type === 'seed' && r.name === name);
  const body = row?.body as { object?: unknown; externalId?: unknown; key?: unknown; records?: unknown; data?: unknown; rows?: unknown } | undefined;
  const key = body?.externalId ?? body?.key ?? 'name';
  const records = body?.records ?? body?.data ?? body?.rows;
  if (typeof body?.object !== 'string' || typeof key !== 'string' || !Array.isArray(records)) return 'kept';
  const values = records.flatMap((r) =>
    r && typeof r === 'object' && typeof (r as Record<string, unknown>)[key] === 'string' ? [(r as Record<string, string>)[key]] : [],
  );
  if (values.length === 0) return { deleted: 0 };
  const exists = await sql<{ n: number }>`
    select count(*)::int as n from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relname = ${body.object} and a.attname = ${key} and a.attnum > 0 and not a.attisdropped`.execute(trx);
  if (exists.rows[0]?.n !== 1) return 'kept';
  const r = await sql`delete from ${sql.id(schema, body.object)} where ${sql.id(key)}::text = any(${values}::text[])`.execute(trx);
  return { deleted: Number(r.numAffectedRows ?? 0) };
}
