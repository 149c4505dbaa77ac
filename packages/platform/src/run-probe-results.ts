import type { BuildIssue } from '@bvl/build-issue';
import type { PlatformContext } from './database.ts';
import { checkScope, type PackageScope } from './scope.ts';

/** The L3 result of one publish, as stored: its issues and the probe report's counts. */
export interface StoredProbeResult {
  readonly publishId: number;
  readonly probedAt: Date;
  readonly issues: BuildIssue[];
  /** The report without its issues (checked/total/skipped/unavailable per plane, rows seeded). */
  readonly report: Record<string, unknown>;
}

/** Records the L3 result of a publish (once; a second record of the same publish replaces it). */
export async function recordProbeResult(
  ctx: PlatformContext,
  scope: PackageScope,
  publishId: number,
  result: { readonly issues: readonly BuildIssue[]; readonly report: Record<string, unknown> },
): Promise<void> {
  checkScope(scope);
  const row = {
    publish_id: publishId,
    tenant_id: scope.tenant,
    package: scope.package,
    issues: JSON.stringify(result.issues),
    report: JSON.stringify(result.report),
    error_count: result.issues.filter((i) => i.severity === 'error').length,
    probed_at: ctx.now().toISOString(),
  };
  await ctx.db
    .insertInto('bvl.probe_results')
    .values(row)
    .onConflict((oc) => oc.column('publish_id').doUpdateSet({ issues: row.issues, report: row.report, error_count: row.error_count }))
    .execute();
}

/** The L3 result of the package's latest probed publish, or undefined when it was never probed. */
export async function latestProbeResult(ctx: PlatformContext, scope: PackageScope): Promise<StoredProbeResult | undefined> {
  checkScope(scope);
  const row = await ctx.db
    .selectFrom('bvl.probe_results')
    .select(['publish_id', 'probed_at', 'issues', 'report'])
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .orderBy('publish_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && storedResult(row);
}

/** A probe_results row as the stored result. */
function storedResult(row: { publish_id: unknown; probed_at: unknown; issues: unknown; report: unknown }): StoredProbeResult {
  return {
    publishId: Number(row.publish_id),
    probedAt: new Date(row.probed_at as string | Date),
    issues: row.issues as BuildIssue[],
    report: row.report as Record<string, unknown>,
  };
}

/**
 * The L3 result of the package's publish right before `publishId` (its log id), or undefined when
 * that publish was never probed or there is none: what a republish's probes may carry over (a
 * result older than that would miss what the publish between changed).
 */
export async function previousProbeResult(ctx: PlatformContext, scope: PackageScope, publishId: number): Promise<StoredProbeResult | undefined> {
  checkScope(scope);
  const prev = await ctx.db
    .selectFrom('bvl.publish_log')
    .select('id')
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .where('id', '<', publishId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!prev) return undefined;
  const row = await ctx.db
    .selectFrom('bvl.probe_results')
    .select(['publish_id', 'probed_at', 'issues', 'report'])
    .where('publish_id', '=', Number(prev.id))
    .executeTakeFirst();
  return row && storedResult(row);
}
