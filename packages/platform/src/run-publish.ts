import { type BuildIssue, sortIssues } from '@bvl/build-issue';
import type { Graph } from '@bvl/metadata';
import type { Checked } from '@bvl/verify';
import { sql } from 'kysely';
import type { PlatformContext } from './database.ts';
import { describeDbError, sqlState } from './describe-db-error.ts';
import { cancelledBy, PublishCancelled, watchAbort } from './run-cancel.ts';
import { describeSessions, LockTimeoutError, takeAdvisoryLock, tenantLockKey, withPackageLock } from './run-package-lock.ts';
import { type Promotion, PUBLISH_LOCK_TIMEOUT_MS, type PublishedItem, type PublishOptions, promote, Refusal } from './run-promote.ts';
import { interruptedIssue, recordSeedReport, resumedIssue } from './run-publish-log.ts';
import type { RetiredItem } from './run-retire.ts';
import { applySeeds, type SeedApplied } from './run-seeds.ts';
import { adoptStaged, DDL_LOCK_BUDGET, dropStaged, needsStaging, type Staged, stagePublish } from './run-stage.ts';
import { ensureTenant, ForeignSchemaError } from './run-tenant.ts';
import type { PackageScope } from './scope.ts';
import { pooledSeedRecords, tenantSeedRecords } from './seed-records.ts';

export {
  PUBLISH_LOCK_TIMEOUT_MS,
  type PublishedItem,
  type PublishOptions,
  type PublishPoint,
} from './run-promote.ts';
export type { RetiredItem } from './run-retire.ts';

/**
 * What a publish did. `published`: the gate passed, metadata promoted and tables created/altered in
 * one transaction, then seeds applied (reported honestly in `seedApplied`, never failing the
 * publish); `issues` are the gate's warnings. `refused`: the gate found L1/L2 errors (or names the
 * database cannot hold); nothing changed, `issues` lists everything the gate found. `nothing_to_publish`:
 * no drafts. `failed`: the transaction rolled back (the previous published state is intact); `error` says why.
 */
export type PublishResult =
  | {
      readonly outcome: 'published';
      readonly schema: string;
      readonly published: PublishedItem[];
      readonly ddlSteps: number;
      readonly graph: Graph;
      readonly seedApplied: SeedApplied;
      readonly issues: BuildIssue[];
      readonly checked: Checked;
      /** Artifacts retired by tombstones. */
      readonly retired: RetiredItem[];
      /** The publish log row (probe results are recorded against it). */
      readonly publishId: number;
      /** Every artifact the package publishes now (what its probes cover), sorted by type and name. */
      readonly packageArtifacts: ReadonlyArray<{ readonly type: string; readonly name: string }>;
      /**
       * What this publish changed: artifacts whose content is new or differs from what was active,
       * those it retired, and (as objects) each table its DDL changed. An artifact in
       * packageArtifacts and not here republished unchanged (or was not in the draft set).
       */
      readonly changed: ReadonlyArray<{ readonly type: string; readonly name: string }>;
      /**
       * The earlier publish (its log id) whose seeds never finished — the process stopped while
       * seeding, or a database failure stopped them — and that this publish applied again (a
       * `seeds_resumed` warning says so). With no drafts, applying them is all this publish did.
       */
      readonly resumed?: number;
    }
  | { readonly outcome: 'refused'; readonly schema: string; readonly issues: BuildIssue[]; readonly checked: Checked }
  | { readonly outcome: 'nothing_to_publish'; readonly schema: string }
  | {
      readonly outcome: 'failed';
      readonly schema: string;
      readonly error: string;
      readonly cause: unknown;
      /** The caller's signal cancelled it before the commit (see PublishOptions.signal). */
      readonly cancelled?: true;
    };

/** What beforeCommit threw, carried through the rollback. */
class Vetoed {
  constructor(readonly error: unknown) {}
}

/**
 * Publishes every draft of the package, behind the gate. ONE transaction holds the metadata and the
 * DDL: it takes an advisory lock on tenant+package (concurrent publishes of a package run one after
 * the other; the second finds nothing left to publish), reads the overlay (the tenant's active items
 * ⊕ the package's drafts, see overlayOf), and runs the gate on exactly that graph: L1 + L2 through
 * `verify`, the function `bvl verify` and verify_build run, plus the names the database must hold.
 * Any error refuses the publish with every issue found; no caller can skip it. Otherwise it promotes
 * the drafts, creates/alters one table per object, and logs the publish. A crash anywhere in it rolls
 * everything back. Seeds run after the commit (see applySeeds: atomic per record), and their report
 * is added to the log.
 *
 * Ownership: the transaction also holds a tenant-wide lock, so two packages publishing the same
 * object at once are decided one after the other (the second sees the first's ownership and is
 * refused) and a tenant's tables (its platform tables included) are created by one publish at a
 * time. Lock waits are bounded (`lockWaitMs`); a timeout names the session holding the lock. The
 * tenant schema must carry bvl's mark. A republish that would lose or change existing rows, or add
 * a constraint they break, is refused with the rows counted (see checkRepublish), unless
 * `allowDataChange` lets the data changes through.
 *
 * After the commit the outcome stays `published` whatever happens: a database failure during the
 * seeds stops them (the seed it hit rolled back, the rest not run) and adds a `publish_interrupted`
 * error; the publish log row, written in the transaction with `seed_applied: {"pending": true}`, gets
 * the seed report (through the pool when the pinned connection was lost).
 *
 * The package's lock is held through the seeds (the whole call runs on one connection under
 * withPackageLock, unless the caller already holds it there), so a publish log row still pending
 * when the next publish holds the lock belongs to a publish whose seeds never finished (the
 * process was killed while seeding): the next publish applies the package's seeds again, with or
 * without drafts, and says so (`resumed`, a `seeds_resumed` warning). So does one after a database
 * failure stopped the seeds.
 *
 * Size (issue 21): a publish whose draft objects would take more table locks than one transaction
 * may (`lockBudget`, default DDL_LOCK_BUDGET; PostgreSQL's lock table holds 6,400 at its defaults)
 * first builds ahead what cannot change the published state — new tables, nullable columns, indexes
 * that refuse no write — in transactions under that budget, holding the tenant's lock on this
 * connection until its switch commits (see stagePublish). The transaction above then runs as
 * always, on the tables as they now are: its DDL and republish check cover only what changes
 * existing tables, and its commit adopts what was built. A failure, refusal or cancel drops what
 * was built; what a killed publish built is dropped by the tenant's next publish. `ddlSteps` counts both.
 * A column type change is built ahead too, as a shadow column kept converted by a trigger and
 * backfilled, and the switch only swaps it in by renames (a few locks a table, see
 * shadow-columns.ts); the columns it retires are dropped after the commit (by the next publish
 * after a kill). What else changes existing tables stays in the switch and locks each of them until its commit: a
 * publish whose switch would take more locks than the server's lock table holds (`lockTable`, read
 * from max_locks_per_transaction × (max_connections + max_prepared_transactions)) is refused with
 * `publish_exceeds_lock_table` before any DDL and before building anything ahead (see checkSwitchLocks).
 *
 * `signal` cancels the publish until its commit (the caller's time bound): `failed`, `cancelled`,
 * nothing published. `beforeCommit` is a last check inside the transaction.
 */
export async function publishPackage(ctx: PlatformContext, scope: PackageScope, options: PublishOptions = {}): Promise<PublishResult> {
  const schema = await ensureTenant(ctx, scope);
  if (options.signal?.aborted) {
    const e = cancelledBy(options.signal);
    return { outcome: 'failed', schema, error: `nothing was published: ${e.message}`, cause: e, cancelled: true };
  }
  // Not yet on a pinned connection holding the package: take one, and the lock, for the seeds too.
  if (ctx.pool === undefined) {
    try {
      const wait = options.lockWaitMs !== undefined ? { waitMs: options.lockWaitMs } : {};
      return await withPackageLock(ctx, scope, (pinned) => publishPackage(pinned, scope, options), {
        ...wait,
        signal: options.signal,
        onWait: options.onLockWait,
      });
    } catch (e) {
      if (options.signal?.aborted) {
        const why = cancelledBy(options.signal);
        return { outcome: 'failed', schema, error: `nothing was published: ${why.message}`, cause: e, cancelled: true };
      }
      if (e instanceof LockTimeoutError) return { outcome: 'failed', schema, error: `nothing was published: ${e.message}`, cause: e };
      throw e;
    }
  }
  let promotion: Promotion;
  let logId: number | undefined;
  const budget = options.lockBudget ?? DDL_LOCK_BUDGET;
  // A large publish builds its new tables ahead, under the tenant's lock held on this connection
  // until its switch commits (see stagePublish); so does one cleaning up what a killed one left.
  let staging = false;
  let staged: Staged = { steps: 0, batches: 0 };
  try {
    if (await needsStaging(ctx.db, scope, budget)) {
      const wait = options.lockWaitMs !== undefined ? { waitMs: options.lockWaitMs } : {};
      await takeAdvisoryLock(ctx.db, tenantLockKey(scope.tenant), `tenant "${scope.tenant}"`, { xact: false, ...wait, signal: options.signal });
      staging = true;
      await dropStaged(ctx.db, schema, scope.tenant, budget);
      staged = await stagePublish(ctx, scope, {
        budget,
        signal: options.signal,
        afterDdlStep: options.afterDdlStep,
        lockWaitMs: options.ddlLockWaitMs ?? PUBLISH_LOCK_TIMEOUT_MS,
        dropData: options.dropData,
        lockTable: options.lockTable,
      });
      await options.onStaged?.(staged, ctx.db);
    }
    promotion = await ctx.db.transaction().execute(async (trx) => {
      // The pool the pinned connection came from cancels a statement on it (PostgreSQL).
      const watch = await watchAbort(trx, ctx.engine === 'postgres' ? ctx.pool : undefined, options.signal);
      try {
        // The switch's DDL steps are numbered on from those built ahead.
        const after = options.afterDdlStep;
        const offset = staged.steps;
        const p = await promote(
          trx,
          ctx.now(),
          scope,
          after && offset > 0 ? { ...options, afterDdlStep: (i, step) => after(offset + i, step) } : options,
          watch.check,
        );
        if (p.kind === 'done') {
          // Who runs it (PostgreSQL): the backend of this pinned connection, which lives as long as
          // the process does, so a reader in another process can tell a publish still running from
          // one whose process is gone (see readPublish).
          const runner =
            ctx.engine === 'postgres'
              ? (
                  await sql<{
                    pid: number;
                    started: string;
                  }>`select pid, backend_start::text as started from pg_catalog.pg_stat_activity where pid = pg_backend_pid()`.execute(trx)
                ).rows[0]
              : undefined;
          const log = await trx
            .insertInto('bvl.publish_log')
            .values({
              tenant_id: scope.tenant,
              package: scope.package,
              outcome: 'published',
              published: JSON.stringify({
                published: p.published,
                retired: p.retired,
                ...(p.resumed !== undefined ? { resumed: p.resumed } : {}),
                ...(runner ? { runner } : {}),
              }),
              seed_applied: JSON.stringify({ pending: true }),
              published_at: ctx.now().toISOString(),
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          logId = Number(log.id);
          // What was built ahead becomes the tenant's with this commit.
          if (staging) await adoptStaged(trx, scope, new Set(p.graph.objects.keys()));
          if (options.beforeCommit) await options.beforeCommit(trx).catch((e: unknown) => Promise.reject(new Vetoed(e)));
        }
        watch.check();
        // Past the last check: nothing cancels it now (an abort from here on is ignored).
        if (logId !== undefined) options.onCommitting?.(logId);
        return p;
      } finally {
        watch.done();
      }
    });
  } catch (e) {
    if (e instanceof Vetoed) throw e.error;
    if (e instanceof Refusal) return { outcome: 'refused', schema, issues: e.issues, checked: e.checked };
    if (options.signal?.aborted) {
      const why = e instanceof PublishCancelled ? e : cancelledBy(options.signal);
      return { outcome: 'failed', schema, error: `nothing was published: ${why.message}`, cause: e, cancelled: true };
    }
    if (e instanceof LockTimeoutError || e instanceof ForeignSchemaError)
      return { outcome: 'failed', schema, error: `nothing was published: ${e.message}`, cause: e };
    let error = `publish rolled back, the previous published state is unchanged: ${describeDbError(e)}`;
    // A table of the tenant stayed locked by a reader past the DDL's lock timeout: say who.
    if (sqlState(e) === '55P03') error += `; ${await tableLockHolders(ctx, schema, options.ddlLockWaitMs ?? PUBLISH_LOCK_TIMEOUT_MS)}`;
    return { outcome: 'failed', schema, error, cause: e };
  } finally {
    // What was built ahead and not adopted goes (all of it when the publish failed), then the tenant is free.
    if (staging) {
      if (logId !== undefined) await options.onSwitched?.(logId);
      await dropStaged(ctx.db, schema, scope.tenant, budget, scope.package).catch(() => {});
      await sql`select pg_advisory_unlock(hashtextextended(${tenantLockKey(scope.tenant)}, 0))`.execute(ctx.db).catch(() => {});
    }
  }
  if (promotion.kind === 'nothing') return { outcome: 'nothing_to_publish', schema };
  const graph = promotion.graph;
  const seeds = [...graph.seeds.values()].filter((s) => promotion.seeds.has(s.name));
  let seedApplied: SeedApplied;
  try {
    seedApplied = await applySeeds(ctx, {
      schema,
      graph,
      seeds,
      now: ctx.now(),
      // On PostgreSQL a stored seed is read on a connection of its own, beside the writer's (see pooledSeedRecords).
      records: ctx.engine === 'postgres' && ctx.pool !== undefined ? pooledSeedRecords(ctx.pool, scope.tenant) : tenantSeedRecords(scope.tenant),
      ...(options.env ? { env: options.env } : {}),
      ...(options.maxSeedRecords !== undefined ? { maxSeedRecords: options.maxSeedRecords } : {}),
    });
  } catch (e) {
    // applySeeds reports every failure it meets; reaching here is a bug, reported as honestly.
    const message = `seeds not applied: ${describeDbError(e)}`;
    seedApplied = {
      success: false,
      inserted: 0,
      updated: 0,
      skipped: 0,
      errors: seeds.map((s) => ({ seed: s.name, object: s.object, recordIndex: -1, message })),
      errorsOmitted: 0,
      seeds: [],
      interrupted: describeDbError(e),
    };
  }
  const unrecorded = logId === undefined ? undefined : await recordSeedReport(ctx, logId, seedApplied);
  const issues = [...promotion.issues];
  if (promotion.resumed !== undefined) issues.push(resumedIssue(scope, promotion.resumed, seedApplied));
  if (seedApplied.interrupted !== undefined || unrecorded !== undefined) issues.push(interruptedIssue(scope, seedApplied, unrecorded));
  return {
    outcome: 'published',
    schema,
    published: promotion.published,
    ddlSteps: promotion.steps + staged.steps,
    graph,
    seedApplied,
    issues: sortIssues(issues),
    checked: promotion.checked,
    retired: promotion.retired,
    publishId: logId!,
    packageArtifacts: promotion.packageArtifacts,
    changed: promotion.changed,
    ...(promotion.resumed !== undefined ? { resumed: promotion.resumed } : {}),
  };
}

/** Who holds locks on the tenant's tables (after a DDL gave up waiting for them). */
async function tableLockHolders(ctx: PlatformContext, schema: string, waitMs: number): Promise<string> {
  const rows = await sql<{ pid: number; application_name: string | null; state: string | null; secs: number | null; tables: string }>`
    select a.pid, a.application_name, a.state, extract(epoch from (now() - coalesce(a.xact_start, a.backend_start)))::int as secs,
           string_agg(distinct c.relname, ', ') as tables
    from pg_catalog.pg_locks l
    join pg_catalog.pg_class c on c.oid = l.relation
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    join pg_catalog.pg_stat_activity a on a.pid = l.pid
    where n.nspname = ${schema} and c.relkind in ('r', 'p') and l.granted and l.pid <> pg_backend_pid()
    group by a.pid, a.application_name, a.state, a.xact_start, a.backend_start
    order by a.pid limit 3`
    .execute(ctx.db)
    .catch(() => ({ rows: [] }));
  if (rows.rows.length === 0) return `a table of schema ${schema} was locked by another session, which has let go since`;
  return `tables of schema ${schema} are locked by ${describeSessions(rows.rows)} (${rows.rows.map((r) => r.tables).join('; ')}); the publish waited ${waitMs / 1000} s for them`;
}
