import type { ObjectNode } from '@bvl/metadata';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type ColumnType, typeSql } from './column-type.ts';
import { arrayLiteral, CopyData, copyField, copyRows } from './copy-rows.ts';
import type { DynamicDatabase, EngineKind } from './database.ts';
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
  /** Of the rows updated, those whose values differed and were rewritten (absent while none were). */
  changed?: number;
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

const bug = (message: string): never => {
  throw new Error(message);
};
/** The column type of `id`. */
export const ID_TYPE: ColumnType = { base: 'text', array: false };

/** A value as the text its column parses (arrays as JSON text, unpacked by {@link fromText}); null stays null. */
export const asText = (v: unknown): string | null => (v === null || v === undefined ? null : Array.isArray(v) ? JSON.stringify(v) : String(v));

/** The SQL that turns a text value back into its column's type: the database judges it exactly as a bound parameter. */
export function fromText(v: RawBuilder<unknown>, type: ColumnType): RawBuilder<unknown> {
  // Arrays arrive as JSON text: unpack them, then cast the elements' array to the column type.
  return type.array ? sql`array(select jsonb_array_elements_text(${v}::jsonb))::${typeSql(type)}` : sql`${v}::${typeSql(type)}`;
}

/**
 * Where the bulk path copies to: the engine (COPY FROM STDIN on PostgreSQL, FROM '/dev/blob' on
 * PGlite), the schema and the table's name. Without it every row goes by INSERT … SELECT unnest.
 */
export interface CopyTarget {
  readonly engine: EngineKind;
  readonly schema: string;
  readonly table: string;
}

/** Rows and statements the bulk path (COPY) wrote in this process: what a test reads to know the bulk path ran. */
export const seedCopyStats = { rows: 0, statements: 0, fallbacks: 0 };

/**
 * A row's line in COPY's text format, values as {@link asText} gives them (so each column's input
 * function reads the same text the unnest path casts), arrays as array literals; undefined when a
 * value would not read the same that way (the row then goes by the unnest path).
 */
function copyLine(columns: readonly string[], types: readonly ColumnType[], row: InsertRow): string | undefined {
  let line = '';
  for (let j = 0; j < columns.length; j++) {
    const c = columns[j]!;
    const v = c === 'id' ? row.id : row.p.row[c];
    let text: string | null;
    if (v === null || v === undefined) text = null;
    else if (types[j]!.array) {
      if (!Array.isArray(v)) return undefined;
      const literal = arrayLiteral(v);
      if (literal === undefined) return undefined;
      text = literal;
    } else text = asText(v);
    line += j === 0 ? copyField(text) : `\t${copyField(text)}`;
  }
  return line;
}

/** A row to insert: its prepared record and the id it takes. */
export type InsertRow = { p: Prepared; id: string };

/** One set of columns' new rows as {@link planInserts} cut them: the statements to send, in order. */
interface InsertGroup {
  readonly columns: string[];
  readonly types: ColumnType[];
  /** Batches for COPY (with `copy`), each with its rows' COPY text; else batches for INSERT … SELECT unnest (`data` absent). */
  readonly batches: Array<{ readonly rows: InsertRow[]; readonly data?: CopyData }>;
}

/**
 * New rows cut into the statements {@link writeInserts} sends, without touching the database (so
 * the writer builds a chunk's COPY text while the previous chunk's statement runs): per set of
 * columns, batches bounded by {@link INSERT_BYTES} (the defaults a row takes counted too), with
 * `copy` each batch's rows in COPY's text format; a row COPY cannot carry as it is goes by the
 * unnest path, in batches of its own after the COPY batches.
 */
export function planInserts(
  inserts: readonly InsertRow[],
  typeOf: (column: string) => ColumnType | undefined,
  defaults: ReadonlyMap<string, number>,
  copy?: CopyTarget,
): InsertGroup[] {
  const byColumns = new Map<string, { columns: string[]; rows: InsertRow[] }>();
  for (const row of inserts) {
    const columns = ['id', ...Object.keys(row.p.row).filter((c) => c !== 'id')];
    const key = columns.join(',');
    const group = byColumns.get(key);
    if (group) group.rows.push(row);
    else byColumns.set(key, { columns, rows: [row] });
  }
  const groups: InsertGroup[] = [];
  for (const { columns, rows } of byColumns.values()) {
    // Every row key was planned from a field (or is id / created_at / updated_at): a column without a type is a bug.
    const types = columns.map((c) => typeOf(c) ?? bug(`seed column "${c}" has no planned type`));
    const batches: Array<{ rows: InsertRow[]; data?: CopyData }> = [];
    // Bounded by size, not only by count: the defaults a row takes are written too.
    let taken = 0;
    for (const [c, n] of defaults) if (!columns.includes(c)) taken += n;
    const textSize = (row: InsertRow) => taken + columns.reduce((n, c) => n + (asText(c === 'id' ? row.id : row.p.row[c])?.length ?? 4), 0);
    let batch: InsertRow[] = [];
    let lines: string[] = [];
    let bytes = 0;
    const flush = (asCopy: boolean) => {
      if (batch.length > 0) batches.push(asCopy ? { rows: batch, data: new CopyData(Buffer.from(`${lines.join('\n')}\n`, 'utf8')) } : { rows: batch });
      batch = [];
      lines = [];
      bytes = 0;
    };
    const unnest: InsertRow[] = [];
    for (const row of rows) {
      const line = copy ? copyLine(columns, types, row) : undefined;
      if (copy && line === undefined) {
        unnest.push(row);
        continue;
      }
      const size = line === undefined ? textSize(row) : taken + line.length;
      if (batch.length > 0 && bytes + size > INSERT_BYTES) flush(copy !== undefined);
      batch.push(row);
      if (line !== undefined) lines.push(line);
      bytes += size;
    }
    flush(copy !== undefined);
    // Rows COPY cannot carry as they are: by the unnest path, bounded the same way.
    for (const row of unnest) {
      const size = textSize(row);
      if (batch.length > 0 && bytes + size > INSERT_BYTES) flush(false);
      batch.push(row);
      bytes += size;
    }
    flush(false);
    groups.push({ columns, types, batches });
  }
  return groups;
}

/**
 * Inserts the new rows {@link planInserts} cut, per set of columns. With `copy`, in batches by one
 * COPY each (the bulk path); a batch COPY refuses (one bad value fails all of it) is written again
 * by the unnest path in halves, so the rows written and the findings are exactly the unnest path's.
 * Without it (or for a row COPY cannot carry the same), one `INSERT … SELECT … FROM
 * unnest($1::text[], …)` per batch — one array parameter per column, whatever the number of rows,
 * cast to the column types (a row without a column gets the column's default, as in a VALUES
 * list). A failing statement is split in halves and retried, each part in its own savepoint, down
 * to single rows: each bad record is named with the database's message and every other record is
 * written (k bad rows cost O(k log n) statements).
 */
export async function writeInserts(
  db: Db,
  table: RawBuilder<unknown>,
  plan: readonly InsertGroup[],
  outcome: WriteCounts,
  err: RecordError,
  copy?: CopyTarget,
): Promise<void> {
  for (const { columns, types, batches } of plan) {
    const insert = (batch: InsertRow[]) => {
      const arrays = columns.map((c) => sql`${batch.map(({ p, id }) => asText(c === 'id' ? id : p.row[c]))}::text[]`);
      const names = sql.join(columns.map((_, j) => sql.id(`c${j}`)));
      const casts = sql.join(columns.map((_, j) => fromText(sql.ref(`u.c${j}`), types[j]!)));
      return sql`insert into ${table} (${sql.join(columns.map((c) => sql.id(c)))}) select ${casts} from unnest(${sql.join(arrays)}) as u(${names})`.execute(db);
    };
    const write = async (batch: InsertRow[]): Promise<void> => {
      const r = await attempt(db, () => insert(batch));
      if (r.ok) outcome.inserted += batch.length;
      else if (batch.length > 1) await halves(batch);
      else {
        outcome.failed++;
        const message = `row not written: ${describeDbError(r.error)}`;
        err(batch[0]!.p.index, message, blameField(message, batch[0]!.p.row));
      }
    };
    const halves = async (batch: InsertRow[]): Promise<void> => {
      const half = Math.ceil(batch.length / 2);
      await write(batch.slice(0, half));
      await write(batch.slice(half));
    };
    const copyBatch = async (batch: InsertRow[], data: CopyData): Promise<void> => {
      const r = await attempt(db, () => copyRows(db, copy!.engine, copy!.schema, copy!.table, columns, data));
      if (r.ok && r.value === batch.length) {
        outcome.inserted += batch.length;
        seedCopyStats.rows += batch.length;
        seedCopyStats.statements++;
        return;
      }
      // COPY stops at the first bad row: the unnest path finds and names each one, in halves.
      seedCopyStats.fallbacks++;
      if (r.ok) throw new Error(`COPY wrote ${r.value} of ${batch.length} rows`);
      if (batch.length > 1) await halves(batch);
      else await write(batch);
    };
    for (const { rows, data } of batches) {
      if (data !== undefined && copy) await copyBatch(rows, data);
      else await write(rows);
    }
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
 * Updates existing rows, changed rows only: per set of columns, one statement per batch that joins
 * the values (one text array per column through unnest, cast to each column's type, so the
 * database judges them as on insert) to the rows by id and writes a row only when a value differs
 * from what it holds (compared as the column's text, so `10` over `10.00` is a change). A row
 * stamped with `updated_at` only by the writer (not by its record) does not count that as a change:
 * a replay of the same seed writes nothing. Every matched row counts as updated, changed or not. A
 * failing statement is retried row by row, each in its own savepoint.
 */
export async function writeUpdates(
  db: Db,
  table: RawBuilder<unknown>,
  updates: Array<{ p: Prepared; id: string }>,
  typeOf: (column: string) => ColumnType | undefined,
  outcome: WriteCounts,
  err: RecordError,
): Promise<void> {
  const groups = new Map<string, { columns: string[]; compared: string[]; rows: Array<{ p: Prepared; id: string }> }>();
  for (const u of updates) {
    const columns = Object.keys(u.p.row).filter((c) => c !== 'id' && c !== 'created_at' && typeOf(c));
    if (columns.length === 0) {
      outcome.updated++;
      continue;
    }
    columns.sort();
    const compared = u.p.stamped ? columns.filter((c) => c !== 'updated_at') : columns;
    const key = `${columns.join(',')}|${compared.length}`;
    const group = groups.get(key) ?? { columns, compared, rows: [] };
    group.rows.push(u);
    groups.set(key, group);
  }
  const values = (columns: string[], rows: Array<{ p: Prepared; id: string }>) => {
    const arrays = [sql`${rows.map((r) => r.id)}::text[]`, ...columns.map((c) => sql`${rows.map(({ p }) => asText(p.row[c]))}::text[]`)];
    return sql`unnest(${sql.join(arrays)}) as v(${sql.join([sql.id('id'), ...columns.map((_, j) => sql.id(`c${j}`))])})`;
  };
  const cast = (columns: string[], j: number): RawBuilder<unknown> => fromText(sql.ref(`v.c${j}`), typeOf(columns[j]!)!);
  // First which rows exist and which differ (one primary-key probe each, LATERAL … LIMIT 1, so the
  // plan never scans the table), then an update of the rows that differ, found by id = any(…).
  const update = async (columns: string[], compared: string[], rows: Array<{ p: Prepared; id: string }>) => {
    const differs =
      compared.length === 0
        ? sql`false`
        : sql`row(${sql.join(compared.map((c) => sql`${sql.ref(`t.${c}`)}::text`))}) is distinct from row(${sql.join(compared.map((c) => sql`${cast(columns, columns.indexOf(c))}::text`))})`;
    const found = await sql<{ id: string; changed: boolean }>`select v.id, m.changed from ${values(columns, rows)}
      cross join lateral (select ${differs} as changed from ${table} as t where t.id = v.id limit 1) as m`.execute(db);
    const changed = new Set(found.rows.filter((r) => r.changed).map((r) => r.id));
    if (changed.size > 0) {
      const write = rows.filter((r) => changed.has(r.id));
      const set = sql.join(columns.map((c, j) => sql`${sql.id(c)} = ${cast(columns, j)}`));
      await sql`update ${table} as t set ${set} from ${values(columns, write)} where t.id = any(${[...changed]}::text[]) and t.id = v.id`.execute(db);
    }
    return { rows: found.rows, changed: changed.size };
  };
  const notWritten = 'row not updated: it was not written earlier in this seed';
  for (const { columns, compared, rows } of groups.values()) {
    const size = (r: { p: Prepared; id: string }) => columns.reduce((n, c) => n + (asText(r.p.row[c])?.length ?? 4), r.id.length);
    const run = async (batch: Array<{ p: Prepared; id: string }>) => {
      const all = await attempt(db, () => update(columns, compared, batch));
      if (all.ok) {
        if (all.value.changed > 0) outcome.changed = (outcome.changed ?? 0) + all.value.changed;
        const done = new Set(all.value.rows.map((r) => r.id));
        for (const { p, id } of batch) {
          if (done.has(id)) outcome.updated++;
          else {
            outcome.failed++;
            err(p.index, notWritten);
          }
        }
        return;
      }
      for (const one of batch) {
        const r = await attempt(db, () => update(columns, compared, [one]));
        if (r.ok && r.value.rows.length > 0) {
          outcome.updated++;
          if (r.value.changed > 0) outcome.changed = (outcome.changed ?? 0) + r.value.changed;
        } else {
          outcome.failed++;
          const message = r.ok ? notWritten : `row not updated: ${describeDbError(r.error)}`;
          err(one.p.index, message, r.ok ? undefined : blameField(message, one.p.row));
        }
      }
    };
    // Bounded by size, as inserts are: a batch never writes more than INSERT_BYTES.
    let batch: Array<{ p: Prepared; id: string }> = [];
    let bytes = 0;
    for (const row of rows) {
      const n = size(row);
      if (batch.length > 0 && bytes + n > INSERT_BYTES) {
        await run(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(row);
      bytes += n;
    }
    if (batch.length > 0) await run(batch);
  }
}
