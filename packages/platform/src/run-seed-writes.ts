import type { ObjectNode } from '@bvl/metadata';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type ColumnType, typeSql } from './column-type.ts';
import type { DynamicDatabase } from './database.ts';
import { describeDbError, isDatabaseFailure } from './describe-db-error.ts';
import type { Prepared } from './prepare-seed-records.ts';

/**
 * The most an INSERT statement writes (its rows' values plus the column defaults they take, as
 * text): well under what PGlite keeps free on its disk (open-platform's reserve is checked before
 * each statement), so one statement can never fill the disk past it.
 */
export const INSERT_BYTES = 8 * 1024 * 1024;

/** The tenant tables, as the seed writer queries them. */
export type Db = Kysely<DynamicDatabase>;
type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A seed's counters the writers add to. */
export interface WriteCounts {
  inserted: number;
  updated: number;
  failed: number;
}

/** A record's row-level failure: its index, the message, the field it is about. */
export type RecordError = (index: number, message: string, field?: string, dropped?: boolean) => void;

/** Runs `fn` inside a savepoint, so a failing statement costs only itself, not the seed's transaction. */
export async function attempt<T>(db: Db, fn: () => Promise<T>): Promise<Attempt<T>> {
  await sql`savepoint bvl_seed`.execute(db);
  try {
    const value = await fn();
    await sql`release savepoint bvl_seed`.execute(db);
    return { ok: true, value };
  } catch (error) {
    // A lost connection or a full disk is not this record's fault: stop the seed (its transaction rolls back).
    if (isDatabaseFailure(error)) throw error;
    await sql`rollback to savepoint bvl_seed`.execute(db);
    await sql`release savepoint bvl_seed`.execute(db);
    return { ok: false, error };
  }
}

/** Which field a value error is about: `invalid input syntax for type numeric: "abc"` names the value. */
export function blameField(message: string, row: Record<string, unknown>): string | undefined {
  // A constraint violation names its key columns: `(Key (code)=(A1) already exists.)`.
  const key = /\(Key \((.+?)\)=\(/
    .exec(message)?.[1]
    ?.split(', ')
    .reverse()
    .find((c) => Object.hasOwn(row, c));
  if (key) return key;
  const m = /: "(.*)"$/.exec(message);
  if (!m) return undefined;
  const hits = Object.entries(row).filter(([, v]) => v !== null && (Array.isArray(v) ? v.map(String) : [String(v)]).includes(m[1]!));
  return hits.length === 1 ? hits[0]![0] : undefined;
}

/** Bound parameters per statement, under Postgres' limit of 65535. */
const MAX_PARAMS = 60_000;
const bug = (message: string): never => {
  throw new Error(message);
};
/** The column type of `id`. */
export const ID_TYPE: ColumnType = { base: 'text', array: false };

/** A value as the text its column parses (arrays as JSON text, unpacked by {@link fromText}); null stays null. */
const asText = (v: unknown): string | null => (v === null || v === undefined ? null : Array.isArray(v) ? JSON.stringify(v) : String(v));

/** The SQL that turns a text value back into its column's type: the database judges it exactly as a bound parameter. */
function fromText(v: RawBuilder<unknown>, type: ColumnType): RawBuilder<unknown> {
  // Arrays arrive as JSON text: unpack them, then cast the elements' array to the column type.
  return type.array ? sql`array(select jsonb_array_elements_text(${v}::jsonb))::${typeSql(type)}` : sql`${v}::${typeSql(type)}`;
}

/**
 * Inserts the new rows: per set of columns, one `INSERT … SELECT … FROM unnest($1::text[], …)` —
 * one array parameter per column, whatever the number of rows, cast to the column types (a row
 * without a column gets the column's default, as in a VALUES list). A failing statement is split in
 * halves and retried, each part in its own savepoint, down to single rows: each bad record is named
 * with the database's message and every other record is written (k bad rows cost O(k log n) statements).
 */
export async function writeInserts(
  db: Db,
  table: RawBuilder<unknown>,
  inserts: Array<{ p: Prepared; id: string }>,
  typeOf: (column: string) => ColumnType | undefined,
  defaults: ReadonlyMap<string, number>,
  outcome: WriteCounts,
  err: RecordError,
): Promise<void> {
  const groups = new Map<string, { columns: string[]; rows: Array<{ p: Prepared; id: string }> }>();
  for (const row of inserts) {
    const columns = ['id', ...Object.keys(row.p.row).filter((c) => c !== 'id')];
    const key = columns.join(',');
    const group = groups.get(key);
    if (group) group.rows.push(row);
    else groups.set(key, { columns, rows: [row] });
  }
  for (const { columns, rows } of groups.values()) {
    // Every row key was planned from a field (or is id / created_at / updated_at): a column without a type is a bug.
    const types = columns.map((c) => typeOf(c) ?? bug(`seed column "${c}" has no planned type`));
    const insert = (batch: typeof rows) => {
      const arrays = columns.map((c) => sql`${batch.map(({ p, id }) => asText(c === 'id' ? id : p.row[c]))}::text[]`);
      const names = sql.join(columns.map((_, j) => sql.id(`c${j}`)));
      const casts = sql.join(columns.map((_, j) => fromText(sql.ref(`u.c${j}`), types[j]!)));
      return sql`insert into ${table} (${sql.join(columns.map((c) => sql.id(c)))}) select ${casts} from unnest(${sql.join(arrays)}) as u(${names})`.execute(db);
    };
    const write = async (batch: typeof rows): Promise<void> => {
      const r = await attempt(db, () => insert(batch));
      if (r.ok) outcome.inserted += batch.length;
      else if (batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await write(batch.slice(0, half));
        await write(batch.slice(half));
      } else {
        outcome.failed++;
        const message = `row not written: ${describeDbError(r.error)}`;
        err(batch[0]!.p.index, message, blameField(message, batch[0]!.p.row));
      }
    };
    // Bounded by size, not only by count: the defaults a row takes are written too.
    let taken = 0;
    for (const [c, n] of defaults) if (!columns.includes(c)) taken += n;
    let batch: typeof rows = [];
    let bytes = 0;
    for (const row of rows) {
      const size = taken + columns.reduce((n, c) => n + (asText(c === 'id' ? row.id : row.p.row[c])?.length ?? 4), 0);
      if (batch.length > 0 && bytes + size > INSERT_BYTES) {
        await write(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(row);
      bytes += size;
    }
    if (batch.length > 0) await write(batch);
  }
}

/** Bytes each column's default writes into a row that leaves it out (text length of the defaultValue). */
export function defaultBytes(object: ObjectNode): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of object.fields.values()) {
    const v = f.def.defaultValue;
    if (v !== undefined && v !== null) out.set(f.name, (typeof v === 'string' ? v : JSON.stringify(v)).length);
  }
  return out;
}

/**
 * Updates existing rows, one `UPDATE … FROM (VALUES …)` per set of columns; values travel as text
 * (arrays as JSON) and are cast to each column's type, so the database judges them as on insert.
 * A failing statement is retried row by row, each in its own savepoint.
 */
export async function writeUpdates(
  db: Db,
  table: RawBuilder<unknown>,
  updates: Array<{ p: Prepared; id: string }>,
  typeOf: (column: string) => ColumnType | undefined,
  outcome: WriteCounts,
  err: RecordError,
): Promise<void> {
  const groups = new Map<string, { columns: string[]; rows: Array<{ p: Prepared; id: string }> }>();
  for (const u of updates) {
    const columns = Object.keys(u.p.row).filter((c) => c !== 'id' && c !== 'created_at' && typeOf(c));
    if (columns.length === 0) {
      outcome.updated++;
      continue;
    }
    const key = columns.sort().join(',');
    const group = groups.get(key) ?? { columns, rows: [] };
    group.rows.push(u);
    groups.set(key, group);
  }
  const cast = (column: string): RawBuilder<unknown> => fromText(sql.ref(`v.${column}`), typeOf(column)!);
  const update = (columns: string[], rows: Array<{ p: Prepared; id: string }>) => {
    const values = rows.map(({ p, id }) => sql`(${sql.join([id, ...columns.map((c) => asText(p.row[c]))])})`);
    const alias = sql`v(${sql.join([sql.id('id'), ...columns.map((c) => sql.id(c))])})`;
    const set = sql.join(columns.map((c) => sql`${sql.id(c)} = ${cast(c)}`));
    return sql<{ id: string }>`update ${table} as t set ${set} from (values ${sql.join(values)}) as ${alias} where t.id = v.id returning t.id`.execute(db);
  };
  for (const { columns, rows } of groups.values()) {
    const per = Math.max(1, Math.floor(MAX_PARAMS / (columns.length + 1)));
    for (let i = 0; i < rows.length; i += per) {
      const batch = rows.slice(i, i + per);
      const all = await attempt(db, () => update(columns, batch));
      const retry = all.ok ? [] : batch;
      if (all.ok) {
        const done = new Set(all.value.rows.map((r) => r.id));
        for (const { p, id } of batch) {
          if (done.has(id)) outcome.updated++;
          else {
            outcome.failed++;
            err(p.index, 'row not updated: it was not written earlier in this seed');
          }
        }
      }
      for (const one of retry) {
        const r = await attempt(db, () => update(columns, [one]));
        if (r.ok && r.value.rows.length > 0) outcome.updated++;
        else {
          outcome.failed++;
          const message = r.ok ? 'row not updated: it was not written earlier in this seed' : `row not updated: ${describeDbError(r.error)}`;
          err(one.p.index, message, r.ok ? undefined : blameField(message, one.p.row));
        }
      }
    }
  }
}
