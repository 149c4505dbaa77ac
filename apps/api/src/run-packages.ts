import { didYouMean } from '@bvl/metadata';
import type { PackageScope, PlatformContext } from '@bvl/platform';
import { ApiError } from './to-error-response.ts';

/** How many of a tenant's packages an unknown-package answer lists. */
const LISTED = 20;

/**
 * A tenant's packages: every package that has a draft, a published artifact (a tombstone counts)
 * or a build session, sorted. A package is created by writing to it — stage_draft, retire_artifact,
 * create_session — never by reading, verifying or publishing it, so a misspelt name is not a package.
 */
export async function packagesOf(ctx: PlatformContext, tenant: string): Promise<string[]> {
  const items = ctx.db.selectFrom('bvl.metadata_items').select('package').where('tenant_id', '=', tenant);
  const sessions = ctx.db.selectFrom('bvl.build_sessions').select('package').where('tenant_id', '=', tenant);
  const rows = await items.union(sessions).execute();
  return rows.map((r) => r.package).sort();
}

/**
 * Refuses an operation on a package the tenant does not have (see {@link packagesOf}) with a 404
 * that names the closest packages it does have: verify of a misspelt package would otherwise
 * answer `ok: true` over nothing, and publish `nothing_to_publish`.
 */
export async function requirePackage(ctx: PlatformContext, scope: PackageScope): Promise<void> {
  const inItems = await ctx.db
    .selectFrom('bvl.metadata_items')
    .select('package')
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .limit(1)
    .executeTakeFirst();
  if (inItems) return;
  const inSessions = await ctx.db
    .selectFrom('bvl.build_sessions')
    .select('package')
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .limit(1)
    .executeTakeFirst();
  if (inSessions) return;
  const names = await packagesOf(ctx, scope.tenant);
  const near = didYouMean(scope.package, names);
  const listed =
    names.length === 0
      ? 'the tenant has no package yet'
      : `its packages: ${names.slice(0, LISTED).join(', ')}${names.length > LISTED ? `, … (${names.length})` : ''}`;
  throw new ApiError(
    'not_found',
    `package ${JSON.stringify(scope.package)} does not exist: it has no draft, no published artifact and no build session${near.length ? `. Did you mean ${JSON.stringify(near[0])}?` : ''} (${listed}). A package starts with its first staged draft or build session.`,
    undefined,
    { suggestions: near },
  );
}
