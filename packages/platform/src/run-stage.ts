import { sortIssues } from '@bvl/build-issue';
import { type Kysely, sql } from 'kysely';
import type { BvlDatabase, PlatformContext } from './database.ts';
import { diffSchema, type ExistingSchema, type SchemaStep } from './diff-schema.ts';
import { overlayOf } from './overlay-of.ts';
import { planTables, type TablePlan } from './plan-tables.ts';
import { watchAbort } from './run-cancel.ts';
import { type AfterStep, applySchemaSteps, readExistingSchema } from './run-ddl.ts';
import { readOverlayRows } from './run-drafts.ts';
import { checkSwitchLocks } from './run-lock-table.ts';
import { Refusal } from './run-promote.ts';
import { ensureOwnSchema } from './run-tenant.ts';
import type { PackageScope } from './scope.ts';
import { isShadowColumn, shadowable, shadowFunctionOf, shadowNames } from './shadow-columns.ts';
import { verifyStored } from './stored-seeds.ts';
import type { LockTable } from './switch-locks.ts';

/**
 * Locks one transaction of a publish may take for its tables (issue 21). PostgreSQL's lock table
 * holds `max_locks_per_transaction × (max_connections + max_prepared_transactions)` locks for all
 * sessions together — 6,400 at the defaults (64 × 100) — and creating a table takes about 7 (the
 * table, its primary key, its TOAST table and index, each index). One transaction creating 1,000
 * tables runs out ("out of shared memory"). A publish whose tables need more than this is built
 * ahead in transactions of at most this many locks each (see {@link stagePublish}), and switched
 * to in one short transaction that takes only the locks of what changes existing tables.
 */
export const DDL_LOCK_BUDGET = 1_500;

/**
 * Locks a step takes, counted generously (measured on PostgreSQL 15 in pg_locks: a table with a text
 * primary key, TOAST and one index takes 8; adding a foreign key locks both tables and the target's key).
 */
export function locksOf(step: SchemaStep): number {
  switch (step.kind) {
    case 'create_table':
      return 6;
    case 'add_column':
      return 3;
    case 'create_index':
      return 2;
    case 'add_foreign_key':
      return 4;
    case 'add_shadow_column':
      // The column, the trigger and its function, and the backfill (the table and each index).
      return 12;
    default:
      return 3;
  }
}

/** The locks a publish creating tables for `objects` objects would take in one transaction, roughly. */
export const locksForObjects = (objects: number): number => objects * 8;

/**
 * Whether a publish should build its tables ahead (more draft objects than one transaction's lock
 * budget covers), or clean up what a failed or killed one left (rows in bvl.publish_staging for
 * the tenant). Two small queries; a small publish answers no and runs as one transaction, as before.
 */
export async function needsStaging(db: Kysely<BvlDatabase>, scope: PackageScope, budget: number): Promise<boolean> {
  const r = await sql<{ objects: number; leftovers: boolean }>`
    select (select count(*)::int from bvl.metadata_items
            where tenant_id = ${scope.tenant} and package = ${scope.package} and state = 'draft' and type = 'object' and not tombstone) as objects,
           exists (select 1 from bvl.publish_staging where tenant_id = ${scope.tenant}) as leftovers`.execute(db);
  const row = r.rows[0];
  return row !== undefined && (row.leftovers || locksForObjects(row.objects) > budget);
}

/**
 * Whether a step can run before the switch without changing what the published state means: a
 * new table (and its keys and indexes), a nullable column added to an existing table (with its
 * foreign key, validated at once since every row holds null), an index that cannot refuse a
 * write (a plain index, or a unique one over a new column, null in every row), and the shadow
 * column of a type change (see shadow-columns.ts: the switch then only swaps it in). The previous
 * metadata never names any of them, so readers and writers of the published state see no change.
 * Type changes a shadow cannot carry (see shadowable), NOT NULL, foreign keys and unique indexes on
 * existing columns, and drops wait for the switch (and the republish check decides them there).
 */
function stageable(step: SchemaStep, existing: ExistingSchema, added: ReadonlySet<string>, tables: readonly TablePlan[]): SchemaStep | undefined {
  const isNew = !existing.tables.has(step.table);
  switch (step.kind) {
    case 'alter_column_type':
      return shadowable(step, existing, tables)
        ? { kind: 'add_shadow_column', table: step.table, column: step.column, from: step.from, to: step.to }
        : undefined;
    case 'create_table':
      return step;
    case 'add_column':
      return step.column.notNull ? undefined : step;
    case 'add_foreign_key':
      if (isNew) return step;
      return added.has(`${step.table}\u0000${step.column}`) ? { ...step, validate: true } : undefined;
    case 'create_index':
      if (isNew || !step.unique) return step;
      return step.columns.some((c) => added.has(`${step.table}\u0000${c}`) && !(step.nullSafe ?? []).includes(c)) ? step : undefined;
    default:
      return undefined;
  }
}

/** What {@link stagePublish} built. */
export interface Staged {
  /** DDL steps run ahead of the switch. */
  readonly steps: number;
  /** Transactions they ran in. */
  readonly batches: number;
}

/** Intent rows of what the steps build (a foreign key goes with its column or table). */
function intentsOf(scope: PackageScope, steps: readonly SchemaStep[], existing: ExistingSchema) {
  const out: Array<{ tenant_id: string; package: string; kind: 'table' | 'column' | 'index'; table_name: string; member: string | null }> = [];
  for (const s of steps) {
    const base = { tenant_id: scope.tenant, package: scope.package, table_name: s.table };
    if (s.kind === 'create_table') out.push({ ...base, kind: 'table', member: null });
    else if (s.kind === 'add_column') out.push({ ...base, kind: 'column', member: s.column.name });
    else if (s.kind === 'add_shadow_column') out.push({ ...base, kind: 'column', member: shadowNames(s.table, s.column).shadow });
    else if (s.kind === 'create_index' && existing.tables.has(s.table)) out.push({ ...base, kind: 'index', member: s.name });
  }
  return out;
}

/**
 * Builds ahead what a large publish can build without changing the published state (see
 * {@link stageable}): the draft set is gated and planned as the publish transaction will (a
 * refused or empty one builds nothing: that transaction refuses it), every table, column and
 * index it will build is recorded in bvl.publish_staging (committed first, so a kill leaves a
 * trace), then the steps run in transactions of at most `budget` locks each. The publish
 * transaction that follows diffs against the tables as they now are, so it runs only what is left
 * (and the republish check probes only that), then adopts what was built (deleting its rows).
 * The caller holds the package's and the tenant's locks on `ctx.db` (one pinned connection).
 * `signal` stops it between statements; what was built stays recorded for {@link dropStaged}.
 */
export async function stagePublish(
  ctx: PlatformContext,
  scope: PackageScope,
  options: {
    budget: number;
    signal?: AbortSignal | undefined;
    afterDdlStep?: AfterStep | undefined;
    lockWaitMs: number;
    dropData?: boolean | undefined;
    lockTable?: LockTable | undefined;
  },
): Promise<Staged> {
  const none = { steps: 0, batches: 0 };
  // Read and gated in one snapshot: large seeds' records stay in the store, read part by part (issue 21).
  const read = await ctx.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const rows = await readOverlayRows(trx, scope.tenant, scope.package, { storedSeeds: true });
      if (!rows.some((r) => r.state === 'draft')) return undefined;
      const overlay = overlayOf(rows, scope.package);
      return { overlay, gate: await verifyStored(trx, scope.tenant, overlay.published, overlay.drafts) };
    });
  if (!read) return none;
  const { overlay, gate } = read;
  const plan = planTables(gate.graph);
  if (!gate.publishable || plan.issues.length > 0) return none;
  options.signal?.throwIfAborted();
  const schema = await ctx.db.transaction().execute((trx) => ensureOwnSchema(trx, scope.tenant));
  const existing = await readExistingSchema(ctx.db, schema);
  const { ahead: steps, after } = splitSteps(plan.tables, existing);
  // The switch that follows must fit the server's lock table, or nothing is worth building ahead:
  // refused now, before anything is built (the switch counts the same again, see promote).
  const drops = options.dropData === true ? overlay.retired.filter((r) => r.type === 'object' && existing.tables.has(r.name)).map((r) => r.name) : [];
  const tooBig = await checkSwitchLocks(ctx.db, scope.package, schema, after, drops, options.lockTable);
  if (tooBig) throw new Refusal(sortIssues([...gate.issues, tooBig]), gate.checked);
  if (steps.length === 0) return none;
  const intents = intentsOf(scope, steps, existing);
  for (let i = 0; i < intents.length; i += 1000)
    await ctx.db
      .insertInto('bvl.publish_staging')
      .values(intents.slice(i, i + 1000))
      .execute();
  let batches = 0;
  let done = 0;
  for (const batch of inBatches(steps, options.budget)) {
    options.signal?.throwIfAborted();
    const offset = done;
    await ctx.db.transaction().execute(async (trx) => {
      await sql`select set_config('lock_timeout', ${`${options.lockWaitMs}ms`}, true)`.execute(trx);
      const watch = await watchAbort(trx, ctx.engine === 'postgres' ? ctx.pool : undefined, options.signal);
      try {
        await applySchemaSteps(trx, schema, batch, async (i, step) => {
          await options.afterDdlStep?.(offset + i, step);
          watch.check();
        });
      } finally {
        watch.done();
      }
    });
    done += batch.length;
    batches++;
  }
  return { steps: done, batches };
}

/** The steps that can run ahead, in diffSchema's order (every step's prerequisites first). */
export function stageableSteps(tables: readonly TablePlan[], existing: ExistingSchema): SchemaStep[] {
  return splitSteps(tables, existing).ahead;
}

/** The steps that can run ahead (in diffSchema's order), and those left for the switch. */
export function splitSteps(tables: readonly TablePlan[], existing: ExistingSchema): { ahead: SchemaStep[]; after: SchemaStep[] } {
  const steps = diffSchema(tables, existing);
  const added = new Set(steps.flatMap((s) => (s.kind === 'add_column' && !s.column.notNull ? [`${s.table}\u0000${s.column.name}`] : [])));
  const ahead: SchemaStep[] = [];
  const after: SchemaStep[] = [];
  for (const s of steps) {
    const t = stageable(s, existing, added, tables);
    if (t) ahead.push(t);
    // A type change built ahead leaves the switch only its swap.
    if (t?.kind === 'add_shadow_column') after.push({ ...t, kind: 'swap_shadow_column' });
    else if (!t) after.push(s);
  }
  return { ahead, after };
}

/** Splits steps into runs of at most `budget` locks (a step bigger than the budget runs alone). */
export function inBatches(steps: readonly SchemaStep[], budget: number): SchemaStep[][] {
  const out: SchemaStep[][] = [];
  let current: SchemaStep[] = [];
  let locks = 0;
  for (const s of steps) {
    const n = locksOf(s);
    if (current.length > 0 && locks + n > budget) {
      out.push(current);
      current = [];
      locks = 0;
    }
    current.push(s);
    locks += n;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * Inside the publish transaction, once it promoted: the package's staged tables, columns and
 * indexes the published graph now has become the tenant's (their rows go); any other stays
 * recorded and is dropped after the commit. Returns how many stayed.
 */
export async function adoptStaged(trx: Kysely<BvlDatabase>, scope: PackageScope, tables: ReadonlySet<string>): Promise<number> {
  const rows = await trx
    .selectFrom('bvl.publish_staging')
    .select(['id', 'kind', 'table_name', 'member'])
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .execute();
  if (rows.length === 0) return 0;
  // A column or index of a planned table is the table's (a column no field names stays, as columns do).
  // Shadow and retired columns never are: the switch swapped them in (see recordSwaps) or they go.
  const adopted = rows.filter((r) => tables.has(r.table_name) && !(r.member !== null && isShadowColumn(r.member))).map((r) => Number(r.id));
  for (let i = 0; i < adopted.length; i += 5000) {
    const ids = adopted.slice(i, i + 5000);
    await trx.deleteFrom('bvl.publish_staging').where(sql<boolean>`id = any(${ids}::bigint[])`).execute();
  }
  return rows.length - adopted.length;
}

/**
 * Drops what bvl.publish_staging records for the tenant (or one package of it): what a failed,
 * cancelled or killed publish built ahead and no switch adopted. Tables first (with what depends
 * on them), then columns and indexes, in transactions of at most `budget` locks; each row goes with
 * what it names, so a kill here leaves the rest for the next publish. The caller holds the tenant's lock.
 */
export async function dropStaged(db: Kysely<BvlDatabase>, schema: string, tenant: string, budget: number, pkg?: string): Promise<number> {
  let q = db.selectFrom('bvl.publish_staging').select(['id', 'kind', 'table_name', 'member']).where('tenant_id', '=', tenant);
  if (pkg !== undefined) q = q.where('package', '=', pkg);
  const rows = await q.execute();
  const order = { table: 0, column: 1, index: 2 } as const;
  rows.sort((a, b) => order[a.kind] - order[b.kind] || Number(a.id) - Number(b.id));
  const perBatch = Math.max(1, Math.floor(budget / 8));
  for (let i = 0; i < rows.length; i += perBatch) {
    const batch = rows.slice(i, i + perBatch);
    await db.transaction().execute(async (trx) => {
      for (const r of batch) {
        const t = sql.id(schema, r.table_name);
        if (r.kind === 'table') await sql`drop table if exists ${t} cascade`.execute(trx);
        else if (r.kind === 'column' && r.member !== null) {
          const exists =
            await sql`select 1 from pg_catalog.pg_namespace n join pg_catalog.pg_class c on c.relnamespace = n.oid where n.nspname = ${schema} and c.relname = ${r.table_name}`.execute(
              trx,
            );
          if (exists.rows.length > 0) await sql`alter table ${t} drop column if exists ${sql.id(r.member)} cascade`.execute(trx);
          // A shadow's trigger function goes too, and with it the trigger (a retired column's went with the column).
          const fn = shadowFunctionOf(r.member);
          if (fn !== undefined) await sql`drop function if exists ${sql.id(schema, fn)}() cascade`.execute(trx);
        } else if (r.kind === 'index' && r.member !== null) await sql`drop index if exists ${sql.id(schema, r.member)}`.execute(trx);
      }
      await trx
        .deleteFrom('bvl.publish_staging')
        .where(sql<boolean>`id = any(${batch.map((r) => Number(r.id))}::bigint[])`)
        .execute();
    });
  }
  return rows.length;
}
