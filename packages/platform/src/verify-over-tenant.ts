import { type ArtifactSet, mergeOverlay } from '@bvl/metadata';
import { type Verification, verify } from '@bvl/verify';
import type { PlatformContext } from './database.ts';
import { overlayOf } from './overlay-of.ts';
import { readOverlayRows } from './run-drafts.ts';

/**
 * A stack's files verified over what the tenant already publishes (every package's active
 * artifacts; the files replace what they redefine, as the package's drafts will): the overlay the
 * publish gate judges, read before anything is staged. What the files alone cannot resolve — a
 * lookup to an object another package of the tenant published — resolves here as it does through
 * the HTTP API. The gate inside publish still judges the store under the package lock.
 */
export async function verifyOverTenant(
  ctx: PlatformContext,
  scope: { readonly tenant: string; readonly package: string },
  published: ArtifactSet,
  drafts: ArtifactSet | undefined,
): Promise<Verification> {
  const rows = (await readOverlayRows(ctx.db, scope.tenant, scope.package)).filter((r) => r.state === 'active');
  const tenantState = overlayOf(rows, scope.package).published.artifacts;
  return verify({ ...published, artifacts: [...mergeOverlay(tenantState, published.artifacts).merged.values()] }, drafts);
}
