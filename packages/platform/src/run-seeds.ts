import { randomUUID } from 'node:crypto';
import { type Graph, type ObjectNode, RELATION_TYPES, referenceOf, resolveField, type SeedNode } from '@bvl/metadata';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type ColumnType, columnTypeOf, typeSql } from './column-type.ts';
import type { DynamicDatabase, PlatformContext } from './database.ts';
import { describeDbError, isDatabaseFailure } from './describe-db-error.ts';
import { identifierProblem } from './identifier.ts';
import { naturalKeyOf } from './natural-key.ts';
import { orderSeeds } from './order-seeds.ts';
import { toColumnValue } from './to-column-value.ts';
import { writeContractProblem } from './write-contract.ts';

/**
 * Records matched, inserted or resolved per statement. Large, because matching a chunk's
 * externalIds scans the table (no index on them) and inserts travel as one array per column
 * (INSERT … SELECT unnest), so a statement's size does not grow with its rows' parameters.
 */
export const SEED_CHUNK = 5_000;
/**
 * The most an INSERT statement writes (its rows' values plus the column defaults they take, as
 * text): well under what PGlite keeps free on its disk (open-platform's reserve is checked before
 * each statement), so one statement can never fill the disk past it.
 */
export const INSERT_BYTES = 8 * 1024 * 1024;
/** Record-level errors kept in the report; the rest are counted in `errorsOmitted`. */
export const MAX_SEED_ERRORS = 500;
/** Records applied per publish; a larger seed set is cut off with an error, not run unbounded. */
export const MAX_SEED_RECORDS = 2_000_000;

/** One record-level failure. `recordIndex` is the record's index in the seed; -1 means the seed as a whole. */
export interface SeedError {
  readonly seed: string;
  readonly object: string;
  readonly recordIndex: number;
  readonly field?: string;
  readonly message: string;
}

/** What happened to one seed. `failed` counts records that were not written at all. */
export interface SeedOutcome {
  readonly seed: string;
  readonly object: string;
  readonly mode: SeedNode['mode'];
  readonly records: number;
  readonly applied: boolean;
  readonly reason?: string;
  /** Rows `mode: "replace"` deleted before writing the records. */
  deleted?: number;
  inserted: number;
  updated: number;
  skipped: number;
  failed: number;
}

/**
 * The honest seed report of a publish (ObjectStack `seedApplied`): a seed failure never fails the
 * publish, it is reported here. `success` is false when any record or field failed.
 */
export interface SeedApplied {
  readonly success: boolean;
  readonly inserted: number;
  readonly updated: number;
  readonly skipped: number;
  readonly errors: SeedError[];
  readonly errorsOmitted: number;
  readonly seeds: SeedOutcome[];
  /**
   * The database failure that stopped the seeds (connection lost, disk full, …): the seed it hit
   * was rolled back whole and the seeds after it did not run. Seeds before it are committed and
   * counted.
   */
  readonly interrupted?: string;
}

/** What {@link applySeeds} needs: the tenant schema, the published graph, the seeds to run, the clock. */
export interface ApplySeedsOptions {
  readonly schema: string;
  readonly graph: Graph;
  /** Seeds to apply (default: every seed of the graph). */
  readonly seeds?: readonly SeedNode[];
  /** The clock CEL values (`daysAgo(2)`) and created_at/updated_at are computed from. */
  readonly now: Date;
  /** Seeds whose `env` list lacks this are not applied (default: `dev`). */
  readonly env?: string;
}

interface FieldPlan {
  readonly column: string;
  readonly type: ColumnType;
  readonly relation?: { readonly target: string; readonly multiple: boolean };
}

interface Deferred {
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

interface Prepared {
  readonly index: number;
  readonly row: Record<string, unknown>;
  readonly lookups: Array<{ field: string; target: string; multiple: boolean; keys: string[] }>;
}

type Db = Kysely<DynamicDatabase>;
type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `fn` inside a savepoint, so a failing statement costs only itself, not the seed's transaction. */
async function attempt<T>(db: Db, fn: () => Promise<T>): Promise<Attempt<T>> {
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

/** toColumnValue, with a crash of the conversion turned into that value's error (never the seed's). */
function storableValue(value: unknown, type: ColumnType, now: Date): ReturnType<typeof toColumnValue> {
  try {
    return toColumnValue(value, type, now);
  } catch (e) {
    return { ok: false, error: `the value could not be converted: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Which field a value error is about: `invalid input syntax for type numeric: "abc"` names the value. */
function blameField(message: string, row: Record<string, unknown>): string | undefined {
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

/**
 * Applies seeds after the publish transaction: seeds in reference order, each in its own
 * transaction with one savepoint per statement, so **each record is atomic** (fully written or not
 * at all) and a bad record (a bad value, a CEL value that does not evaluate, a record ObjectStack's
 * write contract rejects) never takes its seed down. Upsert by externalId (single or composite,
 * matched with the column's own type); lookups by the target's natural key, else as an id;
 * `multiple` lookups as arrays of keys; CEL values against `now`; modes insert / upsert / update /
 * ignore / replace. Back references (self and cyclic) are resolved in a second pass once every seed
 * has run. Never throws: every failure is a {@link SeedError}. A database failure (connection lost,
 * disk full) rolls back the seed it hits and stops the run; `interrupted` says so, and the counts
 * are those of the seeds committed before it.
 */
export async function applySeeds(ctx: PlatformContext, options: ApplySeedsOptions): Promise<SeedApplied> {
  const { graph, schema } = options;
  const env = options.env ?? 'dev';
  const errors: SeedError[] = [];
  let errorsOmitted = 0;
  const report = (e: SeedError) => (errors.length < MAX_SEED_ERRORS ? errors.push(e) : errorsOmitted++);
  const ordered = orderSeeds(graph, options.seeds ?? [...graph.seeds.values()]);
  const pending = new Map<string, number>();
  for (const s of ordered) pending.set(s.object, (pending.get(s.object) ?? 0) + 1);
  const deferred: Deferred[] = [];
  const outcomes: SeedOutcome[] = [];
  let budget = MAX_SEED_RECORDS;
  const nowIso = options.now.toISOString();
  let interrupted: string | undefined;

  for (const seed of ordered) {
    const records = seed.def.records;
    const outcome: SeedOutcome = {
      seed: seed.name,
      object: seed.object,
      mode: seed.mode,
      records: records.length,
      applied: false,
      inserted: 0,
      updated: 0,
      skipped: 0,
      failed: 0,
    };
    outcomes.push(outcome);
    const object = graph.objects.get(seed.object);
    const skip = (reason: string, error: boolean) => {
      (outcome as { reason?: string }).reason = reason;
      if (error) {
        outcome.failed = records.length;
        report({ seed: seed.name, object: seed.object, recordIndex: -1, message: reason });
      }
    };
    if (interrupted !== undefined) skip(`not applied: the seeds stopped before it, on a database failure (${interrupted})`, true);
    else if (seed.def.env && !seed.def.env.includes(env)) skip(`not applied: the seed's env (${seed.def.env.join(', ')}) does not include "${env}"`, false);
    else if (seed.invalid) skip('not applied: the seed fails its schema (see its invalid_artifact issue)', true);
    else if (!object || identifierProblem(seed.object)) skip(`not applied: object "${seed.object}" does not exist`, true);
    else if (records.length > budget) skip(`not applied: ${records.length} records would pass the limit of ${MAX_SEED_RECORDS} seed records per publish`, true);
    else {
      budget -= records.length;
      (outcome as { applied: boolean }).applied = true;
      // The seed's errors and back references count only once its transaction commits.
      const seedErrors: SeedError[] = [];
      const seedDeferred: Deferred[] = [];
      try {
        await ctx.db.transaction().execute(async (trx) => {
          await runSeed(trx as unknown as Db, {
            schema,
            graph,
            seed,
            object,
            outcome,
            report: (e) => seedErrors.push(e),
            deferred: seedDeferred,
            pending,
            nowIso,
            now: options.now,
          });
        });
        for (const e of seedErrors) report(e);
        deferred.push(...seedDeferred);
      } catch (e) {
        // Rolled back: nothing of this seed was written, whatever its counters said.
        Object.assign(outcome, { applied: false, inserted: 0, updated: 0, skipped: 0 });
        delete outcome.deleted;
        if (isDatabaseFailure(e)) interrupted = describeDbError(e);
        skip(
          `not applied: ${isDatabaseFailure(e) ? 'the database failed while writing it, and its transaction rolled back' : 'it stopped on an unexpected error, and its transaction rolled back'}: ${describeDbError(e)}`,
          true,
        );
      }
    }
    pending.set(seed.object, (pending.get(seed.object) ?? 1) - 1);
  }

  if (deferred.length > 0) {
    const lookupErrors: SeedError[] = [];
    const failed = (message: string) => {
      for (const d of deferred) report({ seed: d.seed, object: d.object, recordIndex: d.recordIndex, field: d.field, message });
    };
    if (interrupted !== undefined) failed(`lookup not resolved: the seeds stopped on a database failure (${interrupted})`);
    else {
      try {
        await ctx.db.transaction().execute(async (trx) => {
          await resolveDeferred(trx as unknown as Db, schema, graph, deferred, (e) => lookupErrors.push(e), nowIso);
        });
        for (const e of lookupErrors) report(e);
      } catch (e) {
        if (isDatabaseFailure(e)) interrupted = describeDbError(e);
        failed(`lookup not resolved: the second pass rolled back: ${describeDbError(e)}`);
      }
    }
  }
  const sum = (k: 'inserted' | 'updated' | 'skipped') => outcomes.reduce((n, o) => n + o[k], 0);
  // Stable order for diffs: seeds in the order they ran, then record, then field.
  const rank = new Map(outcomes.map((o, i) => [o.seed, i]));
  errors.sort(
    (a, b) =>
      (rank.get(a.seed) ?? 0) - (rank.get(b.seed) ?? 0) ||
      a.recordIndex - b.recordIndex ||
      (a.field ?? '').localeCompare(b.field ?? '') ||
      a.message.localeCompare(b.message),
  );
  return {
    success: errors.length === 0 && errorsOmitted === 0,
    inserted: sum('inserted'),
    updated: sum('updated'),
    skipped: sum('skipped'),
    errors,
    errorsOmitted,
    seeds: outcomes,
    ...(interrupted !== undefined ? { interrupted } : {}),
  };
}

interface SeedRun {
  readonly schema: string;
  readonly graph: Graph;
  readonly seed: SeedNode;
  readonly object: ObjectNode;
  readonly outcome: SeedOutcome;
  readonly report: (e: SeedError) => void;
  readonly deferred: Deferred[];
  readonly pending: ReadonlyMap<string, number>;
  readonly nowIso: string;
  readonly now: Date;
}

/** How each record key is written: its column, type and (for lookups) target. Undefined: not a field. */
function planField(object: ObjectNode, key: string): FieldPlan | undefined {
  if (key === 'id') return { column: 'id', type: { base: 'text', array: false } };
  const field = resolveField(object, key);
  if (!field || identifierProblem(key)) return undefined;
  const type = columnTypeOf(field.def);
  const target = RELATION_TYPES.has(field.def.type) ? referenceOf(field.def) : undefined;
  return target ? { column: key, type, relation: { target, multiple: field.def.multiple === true } } : { column: key, type };
}

async function runSeed(db: Db, run: SeedRun): Promise<void> {
  const { seed, object, outcome, report, schema } = run;
  const err = (recordIndex: number, message: string, field?: string) =>
    report({ seed: seed.name, object: seed.object, recordIndex, ...(field ? { field } : {}), message });
  const plans = new Map<string, FieldPlan | undefined>();
  const planOf = (key: string) => {
    if (!plans.has(key)) plans.set(key, planField(object, key));
    return plans.get(key);
  };
  const keyPlans = seed.externalId.map((k) => planOf(k));
  const keyless = keyPlans.some((p) => !p || p.type.array || p.type.base === 'jsonb');
  if (keyless && seed.mode !== 'insert') {
    err(
      -1,
      `externalId ${seed.externalId.join(', ')} is not a scalar field of object "${seed.object}", so records cannot be matched: every record is inserted`,
    );
  }
  const unknownReported = new Set<string>();
  const table = sql.id(schema, seed.object);
  if (seed.mode === 'replace') {
    const cleared = await attempt(db, () => sql`delete from ${table}`.execute(db));
    if (!cleared.ok) err(-1, `mode 'replace' could not clear the table: ${describeDbError(cleared.error)}`);
    else outcome.deleted = Number(cleared.value.numAffectedRows ?? 0);
  }
  const seen = new Map<string, string>();
  const records = seed.def.records;
  // A table with no rows when the seed starts (a first publish) holds nothing a record could match,
  // and the rows this seed writes are matched through `seen`: matching each chunk against the table
  // as it fills (a scan, externalIds have no index) is skipped.
  const fresh = !keyless && (await attempt(db, () => sql<{ any: boolean }>`select exists (select 1 from ${table}) as any`.execute(db)));
  const empty = fresh !== false && fresh.ok && fresh.value.rows[0]?.any === false;
  for (let start = 0; start < records.length; start += SEED_CHUNK) {
    const chunk: Prepared[] = [];
    for (let i = start; i < Math.min(records.length, start + SEED_CHUNK); i++) {
      const record = records[i]!;
      const row: Record<string, unknown> = {};
      const lookups: Prepared['lookups'] = [];
      // A value that cannot be stored (a CEL value that does not evaluate, a list for a number) fails
      // its record, never the seed: each record is written whole or not at all.
      let refused: { field: string; message: string } | undefined;
      for (const [key, value] of Object.entries(record)) {
        const plan = planOf(key);
        if (!plan) {
          if (!unknownReported.has(key)) err(i, `object "${seed.object}" has no field "${key}"; the value was dropped (reported once per seed)`, key);
          unknownReported.add(key);
          continue;
        }
        if (plan.relation) {
          const keys = lookupKeys(value, plan.relation.multiple);
          if (typeof keys === 'string') err(i, keys, key);
          else if (keys.length === 0) row[plan.column] = plan.relation.multiple && Array.isArray(value) ? [] : null;
          else lookups.push({ field: key, target: plan.relation.target, multiple: plan.relation.multiple, keys });
          continue;
        }
        const v = storableValue(value, plan.type, run.now);
        if (v.ok) row[plan.column] = v.value;
        else {
          refused = { field: key, message: `row not written: ${v.error}` };
          break;
        }
      }
      if (refused) {
        outcome.failed++;
        err(i, refused.message, refused.field);
        continue;
      }
      if (!('created_at' in row) && planOf('created_at')) row.created_at = run.nowIso;
      if (!('updated_at' in row) && planOf('updated_at')) row.updated_at = run.nowIso;
      chunk.push({ index: i, row, lookups });
    }
    const later: Array<Omit<Deferred, 'rowId'> & { chunkIndex: number }> = [];
    await resolveLookups(db, run, chunk, err, later);
    const matches = keyless || empty ? new Map<number, string>() : await matchExisting(db, run, chunk, keyPlans as FieldPlan[], err);
    const inserts: Array<{ p: Prepared; id: string }> = [];
    const updates: Array<{ p: Prepared; id: string }> = [];
    const rowIds = new Map<number, string>();
    const pendingById = new Map<string, { p: Prepared; id: string }>();
    for (const p of chunk) {
      if (matches.get(p.index) === '') continue; // its key could not be matched: reported, not written
      const key = keyless ? undefined : keyText(seed.externalId.map((k) => p.row[k]));
      const existing = key === undefined ? undefined : (seen.get(key) ?? matches.get(p.index));
      const write = seed.mode === 'insert' || existing === undefined ? 'insert' : seed.mode === 'ignore' ? 'skip' : 'update';
      if (seed.mode === 'update' && existing === undefined) {
        outcome.failed++;
        err(
          p.index,
          `mode 'update' found no "${seed.object}" row with ${seed.externalId.map((k) => `${k} = ${JSON.stringify(p.row[k] ?? null)}`).join(' and ')}; nothing was written`,
        );
        continue;
      }
      if (write === 'skip') {
        // 'ignore' leaves an existing row exactly as it is, lookups included.
        outcome.skipped++;
        continue;
      }
      // ObjectStack's record validator runs before the database: a record it rejects is not written.
      const refused = writeContractProblem(run.object, records[p.index]!, write);
      if (refused) {
        outcome.failed++;
        err(p.index, refused.message, refused.field);
        continue;
      }
      const id = write === 'update' ? existing! : typeof p.row.id === 'string' ? p.row.id : randomUUID();
      rowIds.set(p.index, id);
      if (key !== undefined) seen.set(key, id);
      // Two records of one key in a chunk write one row: merge into the pending write, the later
      // record winning, so the result is the same on a first publish and on every replay.
      const pending = write === 'update' ? pendingById.get(id) : undefined;
      if (pending) {
        pending.p = { ...pending.p, row: { ...pending.p.row, ...p.row } };
        outcome.updated++;
        continue;
      }
      const entry = { p, id };
      pendingById.set(id, entry);
      (write === 'insert' ? inserts : updates).push(entry);
    }
    await writeInserts(db, table, inserts, (c) => (c === 'id' ? ID_TYPE : planOf(c)?.type), defaultBytes(run.object), outcome, err);
    await writeUpdates(db, table, updates, (c) => planOf(c)?.type, outcome, err);
    for (const d of later) {
      const rowId = rowIds.get(chunk[d.chunkIndex]!.index);
      if (rowId) run.deferred.push({ ...d, rowId });
    }
  }
}

/** The keys of a lookup value: a natural-key string (or an array of them for `multiple`), or why it is unusable. */
function lookupKeys(value: unknown, multiple: boolean): string[] | string {
  if (value === null || value === undefined) return [];
  const items = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && !multiple) return 'a list was given to a single-value lookup; write one natural-key string';
  const out: string[] = [];
  for (const item of items) {
    if (item === null || item === undefined) continue;
    if (typeof item === 'string' || typeof item === 'number') out.push(String(item));
    // Defect class #26: {externalId: 'X'} wrappers never resolved in ObjectStack either.
    else return `lookup value ${JSON.stringify(item)?.slice(0, 80)} is not a key string; write the target's natural key (e.g. its name) as a plain string`;
  }
  return out;
}

const keyText = (values: readonly unknown[]): string | undefined =>
  values.some((v) => v === null || v === undefined) ? undefined : JSON.stringify(values.map(String));

/**
 * Resolves the chunk's lookup keys against their target tables (natural key, else id) and writes
 * the ids into the rows. A key that matches nothing is deferred when its target still has seeds to
 * run (or is this seed's own object), else reported and left empty.
 */
async function resolveLookups(
  db: Db,
  run: SeedRun,
  chunk: Prepared[],
  err: (i: number, m: string, f?: string) => void,
  later: Array<Omit<Deferred, 'rowId'> & { chunkIndex: number }>,
): Promise<void> {
  const byTarget = new Map<string, Set<string>>();
  for (const p of chunk) for (const l of p.lookups) for (const k of l.keys) byTarget.set(l.target, (byTarget.get(l.target) ?? new Set()).add(k));
  const found = new Map<string, Map<string, string> | string>();
  for (const [target, keys] of byTarget) found.set(target, await lookupIds(db, run.schema, run.graph, target, [...keys]));
  chunk.forEach((p, chunkIndex) => {
    for (const l of p.lookups) {
      const ids = found.get(l.target)!;
      if (typeof ids === 'string') {
        err(p.index, ids, l.field);
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
      else err(p.index, unresolvedMessage(run.graph, l.target, missing), l.field);
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
async function matchExisting(
  db: Db,
  run: SeedRun,
  chunk: Prepared[],
  keyPlans: FieldPlan[],
  err: (i: number, m: string, f?: string) => void,
): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const keyed = chunk.filter((p) => keyText(keyPlans.map((k) => p.row[k.column])) !== undefined);
  const query = (ps: Prepared[]) => {
    const args: RawBuilder<unknown>[] = [
      sql`${ps.map((p) => p.index)}::int[]`,
      ...keyPlans.map((_, j) => sql`${ps.map((p) => String(p.row[keyPlans[j]!.column]))}::text[]`),
    ];
    const alias = sql.raw(`v(i, ${keyPlans.map((_, j) => `k${j}`).join(', ')})`);
    const on = sql.join(
      keyPlans.map((k, j) => sql`${sql.ref(`t.${k.column}`)} = ${sql.ref(`v.k${j}`)}::${typeSql(k.type)}`),
      sql` and `,
    );
    return sql<{
      i: number;
      id: string;
    }>`select v.i as i, t.id as id from unnest(${sql.join(args)}) as ${alias} join ${sql.id(run.schema, run.seed.object)} as t on ${on} order by v.i, t.created_at, t.id`.execute(
      db,
    );
  };
  if (keyed.length === 0) return out;
  const all = await attempt(db, () => query(keyed));
  const take = (rows: Array<{ i: number; id: string }>) => rows.forEach((r) => !out.has(r.i) && out.set(r.i, r.id));
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

/** Bound parameters per statement, under Postgres' limit of 65535. */
const MAX_PARAMS = 60_000;
const bug = (message: string): never => {
  throw new Error(message);
};
const ID_TYPE: ColumnType = { base: 'text', array: false };

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
async function writeInserts(
  db: Db,
  table: RawBuilder<unknown>,
  inserts: Array<{ p: Prepared; id: string }>,
  typeOf: (column: string) => ColumnType | undefined,
  defaults: ReadonlyMap<string, number>,
  outcome: SeedOutcome,
  err: (i: number, m: string, f?: string) => void,
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
function defaultBytes(object: ObjectNode): Map<string, number> {
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
async function writeUpdates(
  db: Db,
  table: RawBuilder<unknown>,
  updates: Array<{ p: Prepared; id: string }>,
  typeOf: (column: string) => ColumnType | undefined,
  outcome: SeedOutcome,
  err: (i: number, m: string, f?: string) => void,
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

/** Second pass: back references (self, cycles, later seeds) now that every seed has run. */
async function resolveDeferred(db: Db, schema: string, graph: Graph, deferred: Deferred[], report: (e: SeedError) => void, nowIso: string): Promise<void> {
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
    const err = (message: string) => report({ seed: d.seed, object: d.object, recordIndex: d.recordIndex, field: d.field, message });
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
