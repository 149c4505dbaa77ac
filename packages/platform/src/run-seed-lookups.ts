import { type Graph, resolveField, type SeedNode } from '@bvl/metadata';
import { type RawBuilder, sql } from 'kysely';
import { type ColumnType, typeSql } from './column-type.ts';
import { keyText } from './decide-seed-writes.ts';
import { describeDbError } from './describe-db-error.ts';
import { identifierProblem } from './identifier.ts';
import { naturalKeyOf } from './natural-key.ts';
import type { FieldPlan, Prepared } from './prepare-seed-records.ts';
import { asText, attempt, blameField, type Db, fromText, type RecordError } from './run-seed-writes.ts';
import { SEED_CHUNK } from './seed-limits.ts';
import type { SeedError } from './seed-report.ts';

/** A lookup whose target row did not exist yet when its record was written: resolved in the second pass. */
export interface Deferred {
  readonly seed: string;
  readonly object: string;
  readonly recordIndex: number;
  readonly field: string;
  readonly target: string;
  readonly multiple: boolean;
  readonly keys: string[];
  readonly resolved: string[];
  rowId: string;
}

/** What the lookup steps read of the seed being run. */
export interface LookupRun {
  readonly schema: string;
  readonly graph: Graph;
  readonly seed: SeedNode;
  /** Seeds still to run, per object: a key that matches nothing yet is deferred while its target has some. */
  readonly pending: ReadonlyMap<string, number>;
  readonly outcome: { failed: number };
}

/** Lookup keys a seed run keeps resolved (hits and misses) across its chunks, at most; past it, keys are looked up each chunk. */
export const LOOKUP_CACHE_SIZE = 10_000;

/** What a seed run's lookups found so far in other objects' tables: target → key → id (null: no row). */
export interface LookupCache {
  readonly byTarget: Map<string, Map<string, string | null>>;
  size: number;
}

/**
 * Whether {@link resolveLookups} can resolve every lookup key of `chunk` from `cache`, without the
 * database: each key's target is another object's (this seed's own table changes as it runs) and
 * an earlier chunk found the key there or found it missing.
 */
export function lookupsKnown(run: LookupRun, chunk: readonly Prepared[], cache: LookupCache): boolean {
  for (const p of chunk)
    for (const l of p.lookups) {
      if (l.keys.length === 0) continue;
      if (l.target === run.seed.object) return false;
      const known = cache.byTarget.get(l.target);
      if (!known) return false;
      for (const k of l.keys) if (!known.has(k)) return false;
    }
  return true;
}

/**
 * Resolves the chunk's lookup keys against their target tables (natural key, else id) and writes
 * the ids into the rows. A key that matches nothing is deferred when its target still has seeds to
 * run (or is this seed's own object), else reported and left empty.
 */
export async function resolveLookups(
  db: Db,
  run: LookupRun,
  chunk: Prepared[],
  err: RecordError,
  later: Array<Omit<Deferred, 'rowId'> & { chunkIndex: number }>,
  cache?: LookupCache,
): Promise<void> {
  const byTarget = new Map<string, Set<string>>();
  for (const p of chunk) for (const l of p.lookups) for (const k of l.keys) byTarget.set(l.target, (byTarget.get(l.target) ?? new Set()).add(k));
  const found = new Map<string, Map<string, string> | string>();
  for (const [target, keys] of byTarget) {
    // Another object's table does not change while this seed runs: what a key found (or did not) in an earlier chunk, it finds again.
    const cached = target === run.seed.object ? undefined : cache;
    const known = cached?.byTarget.get(target);
    const ask = known ? [...keys].filter((k) => !known.has(k)) : [...keys];
    const ids = ask.length === 0 ? new Map<string, string>() : await lookupIds(db, run.schema, run.graph, target, ask);
    if (typeof ids !== 'string' && cached) {
      const into = known ?? new Map<string, string | null>();
      if (!known) cached.byTarget.set(target, into);
      for (const k of ask) {
        if (cached.size >= LOOKUP_CACHE_SIZE) break;
        into.set(k, ids.get(k) ?? null);
        cached.size++;
      }
      if (known)
        for (const k of keys) {
          const id = known.get(k);
          if (id !== undefined && id !== null) ids.set(k, id);
        }
    }
    found.set(target, ids);
  }
  chunk.forEach((p, chunkIndex) => {
    for (const l of p.lookups) {
      const ids = found.get(l.target)!;
      if (typeof ids === 'string') {
        err(p.index, ids, l.field, true);
        continue;
      }
      const resolved: string[] = [];
      const missing: string[] = [];
      for (const k of l.keys) {
        const id = ids.get(k);
        if (id === undefined) missing.push(k);
        else resolved.push(id);
      }
      p.row[l.field] = l.multiple ? resolved : (resolved[0] ?? null);
      if (missing.length === 0) continue;
      const stillToRun = (run.pending.get(l.target) ?? 0) > 0;
      if (stillToRun)
        later.push({
          seed: run.seed.name,
          object: run.seed.object,
          recordIndex: p.index,
          field: l.field,
          target: l.target,
          multiple: l.multiple,
          keys: missing,
          resolved,
          chunkIndex,
        });
      else err(p.index, unresolvedMessage(run.graph, l.target, missing), l.field, true);
    }
  });
}

function unresolvedMessage(graph: Graph, target: string, missing: readonly string[]): string {
  const nk = naturalKeyOf(graph, target);
  const shown =
    missing
      .slice(0, 5)
      .map((k) => JSON.stringify(k))
      .join(', ') + (missing.length > 5 ? `, … (${missing.length} in all)` : '');
  return `lookup value${missing.length > 1 ? 's' : ''} ${shown} match${missing.length > 1 ? '' : 'es'} no "${target}" row by ${nk ? `${nk} (nor by id)` : 'id (it has no natural key field)'}; the field was left empty`;
}

/** Natural key (or id) → id on `target`; a string when the target cannot be searched. */
async function lookupIds(db: Db, schema: string, graph: Graph, target: string, keys: string[]): Promise<Map<string, string> | string> {
  if (!graph.objects.has(target) || identifierProblem(target)) return `lookup target object "${target}" does not exist; the field was left empty`;
  const nk = naturalKeyOf(graph, target);
  const by = nk ? sql`${sql.ref(nk)}::text` : sql`null::text`;
  const where = nk ? sql`${sql.ref(nk)}::text = any(${keys}::text[]) or id = any(${keys}::text[])` : sql`id = any(${keys}::text[])`;
  const result = await attempt(db, () =>
    sql<{ id: string; k: string | null }>`select id, ${by} as k from ${sql.id(schema, target)} where ${where} order by created_at, id`.execute(db),
  );
  if (!result.ok) return `could not search "${target}" for lookup values: ${describeDbError(result.error)}`;
  const byKey = new Map<string, string>();
  const byId = new Map<string, string>();
  for (const r of result.value.rows) {
    if (r.k !== null && !byKey.has(r.k)) byKey.set(r.k, r.id);
    byId.set(r.id, r.id);
  }
  const out = new Map<string, string>();
  for (const k of keys) {
    const id = byKey.get(k) ?? byId.get(k);
    if (id !== undefined) out.set(k, id);
  }
  return out;
}

/**
 * Record index → id of the existing row with the same externalId, compared in the column's own type
 * (`'2026-01-02'` matches a date). A record whose key value the column cannot hold maps to '' and
 * is reported: it cannot be written either.
 */
export async function matchExisting(
  db: Db,
  run: LookupRun,
  chunk: Prepared[],
  keyPlans: FieldPlan[],
  err: RecordError,
  compare?: MatchCompare,
  /** Whether the key is indexed, once known: a seed's transaction does not change the table's indexes, so a seed asks once. */
  indexedMemo?: { known?: boolean },
): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const keyed = chunk.filter((p) => keyText(keyPlans.map((k) => p.row[k.column])) !== undefined);
  // With an index on the key: one probe per record (LATERAL … LIMIT 1), whatever the planner knows
  // of the table (a table just bulk-loaded has no statistics, and a join would scan it whole per
  // chunk). Without one (a seed applied past the publish that plans its index): one join.
  const indexed = keyed.length > 0 && (await keyIndexedOnce(db, run.schema, run.seed.object, keyPlans, indexedMemo));
  const query = (ps: Prepared[], with_?: MatchCompare) => {
    const args: RawBuilder<unknown>[] = [
      sql`${ps.map((p) => p.index)}::int[]`,
      ...keyPlans.map((_, j) => sql`${ps.map((p) => String(p.row[keyPlans[j]!.column]))}::text[]`),
      ...(with_ ? with_.columns.map((c) => sql`${ps.map((p) => asText(p.row[c]))}::text[]`) : []),
    ];
    const alias = sql.raw(`v(i, ${[...keyPlans.map((_, j) => `k${j}`), ...(with_ ? with_.columns.map((_, j) => `c${j}`) : [])].join(', ')})`);
    const on = sql.join(
      keyPlans.map((k, j) => sql`${sql.ref(`t.${k.column}`)} = ${sql.ref(`v.k${j}`)}::${typeSql(k.type)}`),
      sql` and `,
    );
    // The row's values against the record's, as writeUpdates compares them (each as its column's text).
    const same = !with_
      ? sql`null::boolean`
      : with_.columns.length === 0
        ? sql`true`
        : sql`row(${sql.join(with_.columns.map((c) => sql`${sql.ref(`t.${c}`)}::text`))}) is not distinct from row(${sql.join(with_.columns.map((_, j) => sql`${fromText(sql.ref(`v.c${j}`), with_.types[j]!)}::text`))})`;
    const table = sql.id(run.schema, run.seed.object);
    return indexed
      ? sql<{
          i: number;
          id: string;
          same: boolean | null;
        }>`select v.i as i, m.id as id, m.same as same from unnest(${sql.join(args)}) as ${alias} cross join lateral (select t.id, ${same} as same from ${table} as t where ${on} order by t.created_at, t.id limit 1) as m`.execute(
          db,
        )
      : sql<{
          i: number;
          id: string;
          same: boolean | null;
        }>`select v.i as i, t.id as id, ${same} as same from unnest(${sql.join(args)}) as ${alias} join ${table} as t on ${on} order by v.i, t.created_at, t.id`.execute(
          db,
        );
  };
  if (keyed.length === 0) return out;
  const take = (rows: Array<{ i: number; id: string; same: boolean | null }>) =>
    rows.forEach((r) => {
      if (out.has(r.i)) return;
      out.set(r.i, r.id);
      if (r.same === true) compare?.same.add(r.i);
    });
  // With a comparison: one statement matches each record and says whether its row already holds
  // its values (a replay's rows then need no statement of their own). A value the comparison cannot
  // cast fails it: the records are then matched by their keys alone, as without it.
  if (compare) {
    const both = await attempt(db, () => query(keyed, compare));
    if (both.ok) {
      take(both.value.rows);
      return out;
    }
  }
  const all = await attempt(db, () => query(keyed));
  if (all.ok) take(all.value.rows);
  else {
    // One bad key value fails the batch; find it record by record.
    for (const p of keyed) {
      const one = await attempt(db, () => query([p]));
      if (one.ok) take(one.value.rows);
      else {
        out.set(p.index, '');
        run.outcome.failed++;
        const message = `row not written: its externalId cannot be matched: ${describeDbError(one.error)}`;
        err(p.index, message, blameField(message, p.row));
      }
    }
  }
  return out;
}

/** {@link keyIndexed}, asked once per seed run when `memo` is given (the seed's transaction does not change the table's indexes). */
async function keyIndexedOnce(db: Db, schema: string, table: string, keyPlans: readonly FieldPlan[], memo?: { known?: boolean }): Promise<boolean> {
  if (memo?.known !== undefined) return memo.known;
  const known = await keyIndexed(db, schema, table, keyPlans);
  if (memo) memo.known = known;
  return known;
}

/**
 * What {@link matchExisting} also compares: the columns a record's update would write (compared as
 * writeUpdates compares them), their types, and where it puts the indices of the records whose
 * matched row already holds exactly those values.
 */
export interface MatchCompare {
  readonly columns: readonly string[];
  readonly types: readonly ColumnType[];
  readonly same: Set<number>;
}

/** Whether `table` has a plain index whose leading columns are exactly the key's columns (the `ix_…` index a publish plans for a seed's externalId). */
async function keyIndexed(db: Db, schema: string, table: string, keyPlans: readonly FieldPlan[]): Promise<boolean> {
  const columns = keyPlans.map((k) => k.column);
  const r = await attempt(db, () =>
    sql<{ indexed: boolean }>`select exists (
      select 1 from pg_catalog.pg_index i
      where i.indrelid = ${`${sql.id(schema, table).compile(db).sql}`}::regclass and i.indpred is null and i.indexprs is null
        and (select array_agg(a order by a) from unnest((i.indkey::int2[])[0:${columns.length - 1}]) as a) =
            (select array_agg(attnum order by attnum) from pg_catalog.pg_attribute where attrelid = i.indrelid and attname = any(${columns}::text[]))
    ) as indexed`.execute(db),
  );
  return r.ok && r.value.rows[0]?.indexed === true;
}

/** Second pass: back references (self, cycles, later seeds) now that every seed has run. */
export async function resolveDeferred(
  db: Db,
  schema: string,
  graph: Graph,
  deferred: Deferred[],
  report: (e: SeedError) => void,
  nowIso: string,
): Promise<void> {
  const byTarget = new Map<string, Set<string>>();
  for (const d of deferred) for (const k of d.keys) byTarget.set(d.target, (byTarget.get(d.target) ?? new Set()).add(k));
  const found = new Map<string, Map<string, string> | string>();
  for (const [target, keys] of byTarget) {
    const all = [...keys];
    const merged = new Map<string, string>();
    let failure: string | undefined;
    for (let i = 0; i < all.length && failure === undefined; i += SEED_CHUNK) {
      const part = await lookupIds(db, schema, graph, target, all.slice(i, i + SEED_CHUNK));
      if (typeof part === 'string') failure = part;
      else for (const [k, v] of part) merged.set(k, v);
    }
    found.set(target, failure ?? merged);
  }
  for (const d of deferred) {
    const err = (message: string) => report({ seed: d.seed, object: d.object, recordIndex: d.recordIndex, field: d.field, message, dropped: true });
    const ids = found.get(d.target)!;
    if (typeof ids === 'string') {
      err(ids);
      continue;
    }
    const missing = d.keys.filter((k) => !ids.has(k));
    const resolved = [...d.resolved, ...d.keys.flatMap((k) => (ids.has(k) ? [ids.get(k)!] : []))];
    if (resolved.length > d.resolved.length) {
      const value = d.multiple ? resolved : resolved[0]!;
      const set: Record<string, unknown> = { [d.field]: value };
      if (resolveField(graph.objects.get(d.object)!, 'updated_at')) set.updated_at = nowIso;
      const r = await attempt(db, () => db.withSchema(schema).updateTable(d.object).set(set).where('id', '=', d.rowId).execute());
      if (!r.ok) err(`lookup resolved but not written: ${describeDbError(r.error)}`);
    }
    if (missing.length > 0) err(unresolvedMessage(graph, d.target, missing));
  }
}
