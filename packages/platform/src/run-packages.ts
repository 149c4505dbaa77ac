import type { PlatformContext } from './database.ts';
import type { PackageScope } from './scope.ts';

/**
 * A tenant's packages: every package that has a draft, a published artifact (a tombstone counts)
 * or a build session, sorted. A package is created by writing to it — a staged draft or tombstone,
 * a session — never by reading, verifying or publishing it, so a misspelt name is not a package.
 */
export async function packagesOf(ctx: PlatformContext, tenant: string): Promise<string[]> {
  const items = ctx.db.selectFrom('bvl.metadata_items').select('package').where('tenant_id', '=', tenant);
  const sessions = ctx.db.selectFrom('bvl.build_sessions').select('package').where('tenant_id', '=', tenant);
  const rows = await items.union(sessions).execute();
  return rows.map((r) => r.package).sort();
}

/** Whether the package exists in the sense of {@link packagesOf} (two indexed look-ups). */
export async function packageExists(ctx: PlatformContext, scope: PackageScope): Promise<boolean> {
  const item = await ctx.db
    .selectFrom('bvl.metadata_items')
    .select('package')
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .limit(1)
    .executeTakeFirst();
  if (item) return true;
  const session = await ctx.db
    .selectFrom('bvl.build_sessions')
    .select('package')
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .limit(1)
    .executeTakeFirst();
  return session !== undefined;
}
