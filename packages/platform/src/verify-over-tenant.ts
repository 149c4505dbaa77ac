import { type ArtifactSet, mergeOverlay } from '@bvl/metadata';
import type { Verification } from '@bvl/verify';
import type { PlatformContext } from './database.ts';
import { overlayOf } from './overlay-of.ts';
import { readOverlayRows } from './run-drafts.ts';
import { verifyStored } from './stored-seeds.ts';

/**
 * A stack's files verified over what the tenant already publishes (every package's active
 * artifacts; the files replace what they redefine, as the package's drafts will): the overlay the
 * publish gate judges, read before anything is staged. What the files alone cannot resolve — a
 * lookup to an object another package of the tenant published — resolves here as it does through
 * the HTTP API. The gate inside publish still judges the store under the package lock. A large
 * published seed's records are read part by part, not held (issue 21), in one snapshot.
 */
export async function verifyOverTenant(
  ctx: PlatformContext,
  scope: { readonly tenant: string; readonly package: string },
  published: ArtifactSet,
  drafts: ArtifactSet | undefined,
): Promise<Verification> {
  return ctx.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const rows = (await readOverlayRows(trx, scope.tenant, scope.package, { storedSeeds: true })).filter((r) => r.state === 'active');
      const tenantState = overlayOf(rows, scope.package).published.artifacts;
      return verifyStored(trx, scope.tenant, { ...published, artifacts: [...mergeOverlay(tenantState, published.artifacts).merged.values()] }, drafts);
    });
}
