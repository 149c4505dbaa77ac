import { randomUUID } from 'node:crypto';
import type { Graph, ObjectNode, SeedNode } from '@bvl/metadata';
import { sql } from 'kysely';
import type { EngineKind, PlatformContext } from './database.ts';
import { decideSeedWrites, seedKeyOf } from './decide-seed-writes.ts';
import { describeDbError, isDatabaseFailure } from './describe-db-error.ts';
import { identifierProblem } from './identifier.ts';
import { orderingFields, orderSeeds } from './order-seeds.ts';
import { type FieldPlan, fieldPlanner, type Prepared, prepareSeedRecords } from './prepare-seed-records.ts';
import { type Deferred, type LookupCache, lookupsKnown, type MatchCompare, matchExisting, resolveDeferred, resolveLookups } from './run-seed-lookups.ts';
import { attempt, type Db, defaultBytes, ID_TYPE, planInserts, writeInserts, writeUpdates } from './run-seed-writes.ts';
import { SeedKeyFilter } from './seed-key-filter.ts';
import { MAX_SEED_ERRORS, MAX_SEED_RECORDS, SEED_CHUNK } from './seed-limits.ts';
import { chunksOf, heldSeedRecords, type SeedRecord, type SeedRecordSource, type SeedRecordsOf, SeedSourceError } from './seed-records.ts';
import type { SeedApplied, SeedError, SeedOutcome } from './seed-report.ts';
import type { ColumnValue } from './to-column-value.ts';

export { INSERT_BYTES } from './run-seed-writes.ts';
export { MAX_SEED_ERRORS, MAX_SEED_RECORDS, SEED_CHUNK } from './seed-limits.ts';
export type { SeedApplied, SeedError, SeedOutcome } from './seed-report.ts';

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
  /**
   * New rows go by COPY (the bulk path, default), falling back to INSERT … SELECT unnest for a batch
   * COPY refuses; `false` writes every row by INSERT … SELECT unnest (what the bulk path is proven against).
   */
  readonly bulk?: boolean;
  /** Records applied per call (default {@link MAX_SEED_RECORDS}): a seed that would pass it is refused whole, before any of its rows is written. Tests pass a small one. */
  readonly maxSeedRecords?: number;
  /**
   * Where each seed's records are read from, part by part, in the seed's transaction (default
   * {@link heldSeedRecords}: `seed.def.records`). The count is `seed.recordCount`; a source that
   * gives other records than that, or throws, rolls its seed back, never writes part of it.
   */
  readonly records?: SeedRecordsOf;
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
  const recordsOf = options.records ?? heldSeedRecords;
  const given = options.seeds ?? [...graph.seeds.values()];
  // A stored seed's records are not in its node: the keys they use are read from its source first.
  const ordered = orderSeeds(graph, given, given.some((s) => s.stored !== undefined) ? await usedKeys(ctx, graph, given, recordsOf) : undefined);
  const pending = new Map<string, number>();
  for (const s of ordered) pending.set(s.object, (pending.get(s.object) ?? 0) + 1);
  // The records of each object's seeds in the run: what a key filter carried from seed to seed is sized for.
  const objectRecords = new Map<string, number>();
  for (const s of ordered) objectRecords.set(s.object, (objectRecords.get(s.object) ?? 0) + s.recordCount);
  const carried = new Map<string, CarriedKeys>();
  const deferred: Deferred[] = [];
  const outcomes: SeedOutcome[] = [];
  const limit = options.maxSeedRecords ?? MAX_SEED_RECORDS;
  let budget = limit;
  const nowIso = options.now.toISOString();
  let interrupted: string | undefined;

  for (const seed of ordered) {
    const count = seed.recordCount;
    const outcome: SeedOutcome = {
      seed: seed.name,
      object: seed.object,
      mode: seed.mode,
      records: count,
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
        outcome.failed = count;
        report({ seed: seed.name, object: seed.object, recordIndex: -1, message: reason });
      }
    };
    if (interrupted !== undefined) skip(`not applied: the seeds stopped before it, on a database failure (${interrupted})`, true);
    else if (seed.def.env && !seed.def.env.includes(env)) skip(`not applied: the seed's env (${seed.def.env.join(', ')}) does not include "${env}"`, false);
    else if (seed.invalid) skip('not applied: the seed fails its schema (see its invalid_artifact issue)', true);
    else if (!object || identifierProblem(seed.object)) skip(`not applied: object "${seed.object}" does not exist`, true);
    else if (count > budget) skip(`not applied: ${count} records would pass the limit of ${limit} seed records per publish`, true);
    else {
      budget -= count;
      (outcome as { applied: boolean }).applied = true;
      // The seed's errors and back references count only once its transaction commits.
      const seedErrors: SeedError[] = [];
      const seedDeferred: Deferred[] = [];
      // What stopped the seed, as it happened: a rollback on a connection that is gone fails too, and
      // the transaction would report that instead ("not queryable") of the failure itself.
      let stopped: { error: unknown } | undefined;
      try {
        await ctx.db.transaction().execute(async (trx) => {
          await runSeed(trx as unknown as Db, {
            schema,
            graph,
            seed,
            records: recordsOf(trx, seed),
            object,
            outcome,
            report: (e) => seedErrors.push(e),
            deferred: seedDeferred,
            pending,
            carried,
            objectRecords: objectRecords.get(seed.object) ?? count,
            nowIso,
            now: options.now,
            engine: options.bulk === false ? undefined : ctx.engine,
          }).catch((error: unknown) => {
            stopped = { error };
            throw error;
          });
        });
        for (const e of seedErrors) report(e);
        deferred.push(...seedDeferred);
        // Committed: the rows it inserted are in the table, their keys in the filter it carried on.
        const keys = carried.get(seed.object);
        if (keys?.seed === seed.name) keys.rows += outcome.inserted;
      } catch (thrown) {
        const e = stopped !== undefined ? stopped.error : thrown;
        // Rolled back: nothing of this seed was written, whatever its counters said.
        Object.assign(outcome, { applied: false, inserted: 0, updated: 0, skipped: 0 });
        delete outcome.deleted;
        if (isDatabaseFailure(e)) interrupted = describeDbError(e);
        skip(
          `not applied: ${
            isDatabaseFailure(e)
              ? 'the database failed while writing it, and its transaction rolled back'
              : e instanceof SeedSourceError
                ? 'its records could not be read whole, and its transaction rolled back'
                : 'it stopped on an unexpected error, and its transaction rolled back'
          }: ${describeDbError(e)}`,
          true,
        );
      }
    }
    pending.set(seed.object, (pending.get(seed.object) ?? 1) - 1);
  }

  if (deferred.length > 0) {
    const lookupErrors: SeedError[] = [];
    const failed = (message: string) => {
      for (const d of deferred) report({ seed: d.seed, object: d.object, recordIndex: d.recordIndex, field: d.field, message, dropped: true });
    };
    if (interrupted !== undefined) failed(`lookup not resolved: the seeds stopped on a database failure (${interrupted})`);
    else {
      let stopped: { error: unknown } | undefined;
      try {
        await ctx.db.transaction().execute(async (trx) => {
          await resolveDeferred(trx as unknown as Db, schema, graph, deferred, (e) => lookupErrors.push(e), nowIso).catch((error: unknown) => {
            stopped = { error };
            throw error;
          });
        });
        for (const e of lookupErrors) report(e);
      } catch (thrown) {
        // The failure as it happened, as for a seed (not a failed rollback's).
        const e = stopped !== undefined ? stopped.error : thrown;
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

/** Records the writer matched against their table in this process (a record whose key no row can hold is not): what a test reads to know a key filter was used. */
export const seedMatchStats = { records: 0 };

/** What runSeed decides for a chunk: what it writes and what the match compared. */
interface Decided {
  readonly compared: ReadonlySet<Prepared>;
  readonly compare: MatchCompare | undefined;
  readonly matches: ReadonlyMap<number, string>;
  readonly writes: ReturnType<typeof decideSeedWrites>;
  readonly plan: ReturnType<typeof planInserts>;
}

/**
 * The keys an object's seeds of this run wrote, carried from seed to seed (a million rows come as
 * seeds of at most INPUT_LIMITS.records each): made by the first into an empty table, then taken
 * on by the next while the table holds exactly the `rows` the seeds that used it inserted (so every
 * row's key is in the filter, and a record whose key it lacks needs no match either).
 */
interface CarriedKeys {
  readonly externalId: string;
  readonly filter: SeedKeyFilter;
  /** Rows the committed seeds inserted with it. */
  rows: number;
  /** The seed using it now (its rows count once it commits). */
  seed: string;
}

interface SeedRun {
  readonly schema: string;
  readonly graph: Graph;
  readonly seed: SeedNode;
  /** The seed's records, read part by part ({@link SeedNode.recordCount} of them). */
  readonly records: SeedRecordSource;
  readonly object: ObjectNode;
  readonly outcome: SeedOutcome;
  readonly report: (e: SeedError) => void;
  readonly deferred: Deferred[];
  readonly pending: ReadonlyMap<string, number>;
  /** Per object, the key filter its seeds of this run carry on (see {@link CarriedKeys}). */
  readonly carried: Map<string, CarriedKeys>;
  /** The records of the run's seeds of this object, this one's included. */
  readonly objectRecords: number;
  readonly nowIso: string;
  readonly now: Date;
  /** The engine new rows are copied into (COPY); undefined: every row by INSERT … SELECT unnest. */
  readonly engine: EngineKind | undefined;
}

async function runSeed(db: Db, run: SeedRun): Promise<void> {
  const { seed, object, outcome, report, schema } = run;
  const err = (recordIndex: number, message: string, field?: string, dropped?: boolean) =>
    report({ seed: seed.name, object: seed.object, recordIndex, ...(field ? { field } : {}), message, ...(dropped ? { dropped: true as const } : {}) });
  const planOf = fieldPlanner(object);
  const keyPlans = seed.externalId.map((k) => planOf(k));
  const keyless = keyPlans.some((p) => !p || p.type.array || p.type.base === 'jsonb');
  if (keyless && seed.mode !== 'insert') {
    err(
      -1,
      `externalId ${seed.externalId.join(', ')} is not a scalar field of object "${seed.object}", so records cannot be matched: every record is inserted`,
    );
  }
  // The writer's statements probe an index once per record (matches, comparisons): a table just
  // filled has no statistics, so the planner prices a chunk's probes past jit_above_cost and would
  // compile each statement (about half a second apiece on PostgreSQL, more than the statement runs).
  await sql`set local jit = off`.execute(db);
  const unknownReported = new Set<string>();
  const celCache = new Map<string, ColumnValue>();
  const table = sql.id(schema, seed.object);
  if (seed.mode === 'replace') {
    const cleared = await attempt(db, () => sql`delete from ${table}`.execute(db));
    if (!cleared.ok) err(-1, `mode 'replace' could not clear the table: ${describeDbError(cleared.error)}`);
    else outcome.deleted = Number(cleared.value.numAffectedRows ?? 0);
  }
  const count = seed.recordCount;
  const defaults = defaultBytes(run.object);
  // A table with no rows when the seed starts (a first publish) holds nothing a record could match
  // but the rows this seed writes: matching each chunk against the table as it fills (an index
  // probe per record) is skipped for every record whose key the seed has not written (`written`).
  const fresh = !keyless && (await attempt(db, () => sql<{ any: boolean }>`select exists (select 1 from ${table}) as any`.execute(db)));
  const empty = fresh !== false && fresh.ok && fresh.value.rows[0]?.any === false;
  // What the writer keeps of the keys it wrote, whatever the seed's size (issue 21: memory flat in
  // the row count): a later record of a key an earlier chunk wrote finds that row in the table (the
  // seed's transaction sees its own rows), as a replay finds every row. Into an empty table, only
  // the records whose key `written` may hold are matched (a few bits per key, not the key and its
  // row id); `unwritten` holds the keys whose insert failed and the id it was to take (one per
  // failed record), so a later record of such a key is refused as before, not inserted.
  // A later seed of the object in this run carries on the filter of the seeds before it while the
  // table holds only the rows they inserted (counted: nothing else wrote to it meanwhile).
  const externalId = JSON.stringify(seed.externalId);
  let written: SeedKeyFilter | undefined;
  if (!keyless && seed.mode !== 'insert') {
    const before = run.carried.get(seed.object);
    if (empty) {
      written = new SeedKeyFilter(run.objectRecords);
      run.carried.set(seed.object, { externalId, filter: written, rows: 0, seed: seed.name });
    } else if (before !== undefined && before.externalId === externalId && seed.mode !== 'replace') {
      const rows = await attempt(db, () => sql<{ n: string }>`select count(*) as n from ${table}`.execute(db));
      if (rows.ok && Number(rows.value.rows[0]?.n) === before.rows) {
        written = before.filter;
        before.seed = seed.name;
      }
    }
  }
  const unwritten = new Map<string, string>();
  const keyIndex: { known?: boolean } = {};
  const lookupCache: LookupCache = { byTarget: new Map(), size: 0 };
  const copy = run.engine ? { engine: run.engine, schema, table: seed.object } : undefined;
  const typeOf = (c: string) => (c === 'id' ? ID_TYPE : planOf(c)?.type);
  // The previous chunk's writes, while they run: the chunk after it is prepared, decided and its
  // COPY text built meanwhile (work of this process, while the database writes), and nothing else
  // goes to the seed's connection until they have ended (a statement between a failed COPY and its
  // rollback to the savepoint would fail too) — `settle` waits for them.
  let writing: Promise<void> | undefined;
  const settle = async () => {
    const w = writing;
    writing = undefined;
    await w;
  };
  try {
    // The records a chunk at a time, whatever parts the source reads them in: the chunks are those of
    // the records held whole (so every decision is the same), and only one is held at once (and the
    // one being written). A source reading in the seed's transaction reads only once the writes are done.
    for await (const { start, records } of chunksOf(run.records, count, SEED_CHUNK, seed.name)) {
      const recordOf = (index: number): SeedRecord => records[index - start]!;
      const prepared = prepareSeedRecords({
        seed,
        planOf,
        start,
        end: start + records.length,
        records,
        now: run.now,
        nowIso: run.nowIso,
        unknownReported,
        celCache,
      });
      outcome.failed += prepared.refused;
      for (const p of prepared.problems) err(p.index, p.message, p.field, p.dropped);
      const chunk: Prepared[] = prepared.chunk;
      const later: Array<Omit<Deferred, 'rowId'> & { chunkIndex: number }> = [];
      // A key an earlier chunk found (or did not) in another object's table is known without the
      // database; one not yet known, or of this seed's own object, is read once the writes are done.
      if (!lookupsKnown(run, chunk, lookupCache)) await settle();
      await resolveLookups(db, run, chunk, err, later, lookupCache);
      // What the chunk writes, decided against the table as the previous chunk's writes leave it:
      // its matches are read once they are done; a chunk that needs no match is decided while they
      // run, and again if they failed to write a key (`unwritten`) — rare, and a decision is pure.
      const decide = async (): Promise<Decided> => {
        const seen = new Map<string, string>();
        let match: Prepared[] = keyless || empty ? [] : chunk;
        if (!keyless) {
          if (unwritten.size > 0)
            for (const p of chunk) {
              const key = seedKeyOf(seed, p.row);
              const id = key === undefined ? undefined : unwritten.get(key);
              if (id !== undefined) seen.set(key!, id);
            }
          if (written)
            match = chunk.filter((p) => {
              const key = seedKeyOf(seed, p.row);
              return key !== undefined && !seen.has(key) && written.mayHave(key);
            });
        }
        // A match reads the table: once the writes are done, and with the keys they failed to write.
        if (match.length > 0 && writing !== undefined) {
          await settle();
          return decide();
        }
        // The records compared are those the match saw, as they were then (a merged record is a new object).
        const compared = new Set<Prepared>(match);
        const compare = match.length === 0 || seed.mode === 'ignore' || seed.mode === 'insert' ? undefined : comparedColumns(match, planOf);
        seedMatchStats.records += match.length;
        const matches = match.length === 0 ? new Map<number, string>() : await matchExisting(db, run, match, keyPlans as FieldPlan[], err, compare, keyIndex);
        const writes = decideSeedWrites({ seed, object, chunk, keyless, matches, seen, recordOf, newId: randomUUID });
        return { compared, compare, matches, writes, plan: planInserts(writes.inserts, typeOf, defaults, copy) };
      };
      const before = unwritten.size;
      let decided = await decide();
      // Decided while the previous writes ran (no match needed the table): once they are done, again if they failed a key.
      if (writing !== undefined) {
        await settle();
        if (unwritten.size !== before) decided = await decide();
      }
      const { compared, compare, matches, writes, plan } = decided;
      outcome.failed += writes.failed;
      outcome.skipped += writes.skipped;
      outcome.updated += writes.merged;
      for (const p of writes.problems) err(p.index, p.message, p.field);
      if (written)
        for (const p of chunk) {
          const key = writes.rowIds.has(p.index) ? seedKeyOf(seed, p.row) : undefined;
          if (key !== undefined) written.add(key);
        }
      const write = async () => {
        const failed = new Set<number>();
        const insertErr: typeof err = (index, message, field, dropped) => {
          if (!dropped) failed.add(index);
          err(index, message, field, dropped);
        };
        await writeInserts(db, table, plan, outcome, insertErr, copy);
        if (!keyless && failed.size > 0)
          for (const w of writes.inserts) {
            const key = failed.has(w.p.index) ? seedKeyOf(seed, w.p.row) : undefined;
            if (key !== undefined) unwritten.set(key, w.id);
          }
        // A record matched to a row that already holds its values (a replay's) is updated with nothing to write.
        const updates =
          compare === undefined || compare.same.size === 0
            ? writes.updates
            : writes.updates.filter((w) => {
                const unchanged = compare.same.has(w.p.index) && compared.has(w.p) && matches.get(w.p.index) === w.id;
                if (unchanged) outcome.updated++;
                return !unchanged;
              });
        await writeUpdates(db, table, updates, (c) => planOf(c)?.type, outcome, err);
        for (const d of later) {
          const rowId = writes.rowIds.get(chunk[d.chunkIndex]!.index);
          if (rowId) run.deferred.push({ ...d, rowId });
        }
      };
      writing = write();
      // Handled here (so its failure is never unhandled while the next chunk is read); settle rethrows it.
      writing.catch(() => {});
      if (!run.records.detached) await settle();
    }
    await settle();
  } finally {
    // Nothing of the seed's may still run on its connection when its transaction ends.
    await writing?.catch(() => {});
  }
}

/**
 * The columns an update of each of `match` would compare (writeUpdates' groups: its row's columns
 * but id and created_at, less an updated_at the writer stamped), when they are the same for all of
 * them (a seed's records usually have one shape); undefined otherwise (the update compares them).
 */
function comparedColumns(match: readonly Prepared[], planOf: (key: string) => FieldPlan | undefined): MatchCompare | undefined {
  let shape: string | undefined;
  let columns: string[] = [];
  for (const p of match) {
    const all = Object.keys(p.row).filter((c) => c !== 'id' && c !== 'created_at' && planOf(c));
    all.sort();
    const cols = p.stamped ? all.filter((c) => c !== 'updated_at') : all;
    const key = `${all.join(',')}|${cols.join(',')}`;
    if (shape === undefined) {
      shape = key;
      columns = cols;
    } else if (key !== shape) return undefined;
  }
  return { columns, types: columns.map((c) => planOf(c)!.type), same: new Set() };
}

/**
 * Per stored seed whose records matter to the order (it has lookup fields to the objects of other
 * seeds of the run), which of those fields its records use, read from its source: stops as soon as every
 * such field is found (usually in the first part). A source that fails here counts every such field
 * as used (the seed itself then fails as it runs).
 */
async function usedKeys(ctx: PlatformContext, graph: Graph, seeds: readonly SeedNode[], recordsOf: SeedRecordsOf): Promise<Map<SeedNode, Set<string>>> {
  const used = new Map<SeedNode, Set<string>>();
  const wanted = seeds
    .filter((seed) => seed.stored !== undefined)
    .map((seed) => [seed, orderingFields(graph, seed, seeds)] as const)
    .filter(([, fields]) => fields.length > 0);
  for (const [seed] of wanted) used.set(seed, new Set());
  if (wanted.length === 0) return used;
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      for (const [seed, fields] of wanted) {
        const found = used.get(seed)!;
        try {
          reading: for await (const part of recordsOf(trx, seed)()) {
            for (const r of part) {
              for (const f of fields) if (!found.has(f) && Object.hasOwn(r, f)) found.add(f);
              if (found.size === fields.length) break reading;
            }
          }
        } catch {
          for (const f of fields) found.add(f);
        }
      }
    })
    .catch(() => {
      for (const [seed, fields] of wanted) for (const f of fields) used.get(seed)!.add(f);
    });
  return used;
}
