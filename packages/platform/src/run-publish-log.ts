import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { type Kysely, sql } from 'kysely';
import type { BvlDatabase, PlatformContext } from './database.ts';
import { describeDbError, isConnectionLost } from './describe-db-error.ts';
import { checkScope, type PackageScope } from './scope.ts';
import type { SeedApplied } from './seed-report.ts';

/**
 * Writes the seed report into the publish log. When the pinned connection was lost (PostgreSQL),
 * it goes through the pool instead; on PGlite the pinned connection is the only one (waiting for
 * another would never end). Returns the error when it could not be written.
 */
export async function recordSeedReport(ctx: PlatformContext, id: number, report: SeedApplied): Promise<string | undefined> {
  const write = (db: Kysely<BvlDatabase>) =>
    db
      .updateTable('bvl.publish_log')
      .set({ seed_applied: JSON.stringify(report) })
      .where('id', '=', id)
      .execute();
  try {
    await write(ctx.db);
    return undefined;
  } catch (e) {
    if (!(ctx.engine === 'postgres' && ctx.pool && ctx.pool !== ctx.db && isConnectionLost(e))) return describeDbError(e);
    try {
      await write(ctx.pool);
      return undefined;
    } catch (again) {
      return describeDbError(again);
    }
  }
}

/** The one error a publish that committed but could not finish what follows carries. */
export function interruptedIssue(scope: PackageScope, s: SeedApplied, unrecorded: string | undefined): BuildIssue {
  const parts: string[] = [];
  if (s.interrupted !== undefined) {
    const applied = s.seeds.filter((o) => o.applied).length;
    const lost = s.seeds.filter((o) => !o.applied && o.failed > 0);
    parts.push(
      `the seeds stopped on a database failure (${s.interrupted}): ${applied} of ${s.seeds.length} seeds were applied (${s.inserted} rows inserted, ${s.updated} updated)${lost.length > 0 ? `, and ${lost.map((o) => `"${o.seed}"`).join(', ')} ${lost.length === 1 ? 'was' : 'were'} not (a seed the failure hit is rolled back whole)` : ''}`,
    );
  }
  if (unrecorded !== undefined) parts.push(`the publish log could not record the seed report (${unrecorded}), so it still says the seeds are pending`);
  return makeIssue({
    code: 'publish_interrupted',
    artifact: { type: 'package', name: scope.package },
    message: `Package "${scope.package}" was published to tenant "${scope.tenant}" (its metadata and tables are committed), but ${parts.join('; and ')}.`,
    fix: 'Fix the database (free disk space, restore the connection) and publish again: the published metadata stays, and seeds re-apply (idempotently under upsert and ignore).',
  });
}

/**
 * The package's latest publish, when its seeds never finished: its log row still says
 * `{"pending": true}` (the process stopped while seeding, or could not record the report) or its
 * report says a database failure `interrupted` them. Called under the package's lock, which a
 * publish holds through its seeds, so such a row belongs to a publish that is gone.
 */
export async function unfinishedSeeds(trx: Kysely<BvlDatabase>, scope: PackageScope): Promise<number | undefined> {
  const last = await trx
    .selectFrom('bvl.publish_log')
    .select(['id', 'seed_applied'])
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const report = last?.seed_applied as { pending?: unknown; interrupted?: unknown } | null | undefined;
  if (!last || !report || typeof report !== 'object') return undefined;
  return report.pending === true || typeof report.interrupted === 'string' ? Number(last.id) : undefined;
}

/** The warning a publish carries when it applied the seeds an earlier publish left unfinished. */
export function resumedIssue(scope: PackageScope, publishId: number, s: SeedApplied): BuildIssue {
  return makeIssue({
    code: 'seeds_resumed',
    artifact: { type: 'package', name: scope.package },
    message: `The seeds of package "${scope.package}"'s publish #${publishId} in tenant "${scope.tenant}" never finished (the process stopped while seeding, or a database failure stopped them); this publish applied the package's seeds again: ${s.inserted} rows inserted, ${s.updated} updated, ${s.skipped} skipped${s.success ? '' : `, with ${s.errors.length + s.errorsOmitted} errors (see seedApplied)`}.`,
    fix: 'Check the seed report: rows the interrupted seeds left out are written now (idempotently under upsert and ignore; mode "insert" seeds may have written some rows twice).',
  });
}

/** Where a logged publish got to: its seeds still pending, its probes not yet recorded, or done. */
export type PublishStage = 'seeding' | 'probing' | 'done';

/** One publish as its log row and probe result tell it (see {@link readPublish}). */
export interface PublishRecord {
  readonly publishId: number;
  readonly publishedAt: Date;
  readonly stage: PublishStage;
  readonly published: unknown[];
  readonly retired: unknown[];
  readonly resumed?: number | undefined;
  /** The seed report (absent while the seeds are pending). */
  readonly seedApplied?: SeedApplied | undefined;
  /** The L3 result (absent until it is recorded). */
  readonly probes?: { readonly issues: BuildIssue[]; readonly report: Record<string, unknown> } | undefined;
  /**
   * PostgreSQL: whether the backend that ran the publish's transaction is still connected (its
   * process is alive). Undefined on PGlite (one process holds the data folder: the caller knows
   * what it runs) and for rows logged before this was recorded.
   */
  readonly runnerAlive?: boolean | undefined;
}

/**
 * A publish of the package by its log id, or undefined when the package has none with that id
 * (another tenant's or package's id is not found either). Reads only.
 */
export async function readPublish(ctx: PlatformContext, scope: PackageScope, publishId: number): Promise<PublishRecord | undefined> {
  checkScope(scope);
  if (!Number.isSafeInteger(publishId) || publishId < 1) return undefined;
  const row = await ctx.db
    .selectFrom('bvl.publish_log')
    .select(['id', 'published', 'seed_applied', 'published_at'])
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .where('id', '=', publishId)
    .executeTakeFirst();
  if (!row) return undefined;
  const probe = await ctx.db.selectFrom('bvl.probe_results').select(['issues', 'report']).where('publish_id', '=', publishId).executeTakeFirst();
  const logged = (row.published ?? {}) as { published?: unknown[]; retired?: unknown[]; resumed?: number; runner?: { pid: number; started: string } };
  const seeds = row.seed_applied as (SeedApplied & { pending?: unknown }) | null;
  const pending = !seeds || seeds.pending === true;
  let runnerAlive: boolean | undefined;
  if (ctx.engine === 'postgres' && logged.runner) {
    const alive = await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_stat_activity
      where pid = ${logged.runner.pid} and backend_start = ${logged.runner.started}::timestamptz`.execute(ctx.db);
    runnerAlive = (alive.rows[0]?.n ?? 0) > 0;
  }
  return {
    publishId: Number(row.id),
    publishedAt: new Date(row.published_at),
    stage: pending ? 'seeding' : probe ? 'done' : 'probing',
    published: logged.published ?? [],
    retired: logged.retired ?? [],
    ...(logged.resumed !== undefined ? { resumed: logged.resumed } : {}),
    ...(pending ? {} : { seedApplied: seeds as SeedApplied }),
    ...(probe ? { probes: { issues: probe.issues as BuildIssue[], report: probe.report as Record<string, unknown> } } : {}),
    ...(runnerAlive !== undefined ? { runnerAlive } : {}),
  };
}
