import { didYouMean } from '@bvl/metadata';
import { type PackageScope, type PlatformContext, packageExists, packagesOf } from '@bvl/platform';
import { ApiError } from './to-error-response.ts';

/** How many of a tenant's packages an unknown-package answer lists. */
const LISTED = 20;

/**
 * Refuses an operation on a package the tenant does not have (no draft, published artifact or
 * session: see packagesOf) with a 404 that names the closest packages it does have: verify of a
 * misspelt package would otherwise answer `ok: true` over nothing, and publish `nothing_to_publish`.
 */
export async function requirePackage(ctx: PlatformContext, scope: PackageScope): Promise<void> {
  if (await packageExists(ctx, scope)) return;
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
