import { mergeOverlay } from '@bvl/metadata';
import { discardDrafts, type Platform, stageDrafts, tenantSchema, verifyOverTenant } from '@bvl/platform';
import { verify } from '@bvl/verify';
import { buildCard, type PublishBuildResult, publishBuild } from '@bvl/verify-build';
import { type LocalSource, loadFiles } from './load-files.ts';

/** Where a local publish went. */
export interface PublishTarget {
  readonly tenant: string;
  readonly package: string;
  readonly schema: string;
  readonly database?: string | undefined;
}

/**
 * Publishes files to the local database the way `bvl publish` does: the files are verified first,
 * and when they alone do not pass, again over the tenant's published artifacts (refused without
 * opening a database that holds none, `mayHaveState`); then the overlaid
 * stack becomes the package's drafts and is published under the package lock — publishBuild gates
 * again on the store's overlay, applies seeds and probes.
 */
export async function publishFiles(
  cwd: string,
  source: LocalSource & { readonly tenant: string; readonly package: string; readonly allowDataChange?: boolean | undefined },
  open: () => Promise<Platform>,
  mayHaveState?: () => boolean,
): Promise<PublishBuildResult & { readonly target: PublishTarget }> {
  const files = await loadFiles(cwd, source);
  const scope = { tenant: source.tenant, package: source.package };
  const target = { ...scope, schema: tenantSchema(scope.tenant) };
  const refused = (checked: ReturnType<typeof verify>) => ({
    outcome: 'refused' as const,
    published: false,
    ok: false,
    issues: checked.issues,
    checked: checked.checked,
    card: buildCard({ issues: checked.issues, checked: checked.checked }),
    schema: target.schema,
    session: null,
    target,
  });
  const checked = verify(files.published, files.drafts);
  // A database that cannot hold the tenant's artifacts (none yet) leaves the files' verdict as it is.
  if (!checked.publishable && !(mayHaveState?.() ?? true)) return refused(checked);
  const platform = await open();
  try {
    // What the files alone cannot resolve may be published by another package of the tenant.
    if (!checked.publishable) {
      const overTenant = await verifyOverTenant(platform, scope, files.published, files.drafts);
      if (!overTenant.publishable) return refused(overTenant);
    }
    const stage = [...mergeOverlay(files.published.artifacts, files.drafts?.artifacts ?? []).merged.values()];
    const result = await publishBuild(platform, {
      ...scope,
      ...(source.allowDataChange ? { allowDataChange: true } : {}),
      prepare: async (pinned) => {
        await discardDrafts(pinned, scope);
        await stageDrafts(pinned, scope, stage);
      },
    });
    return { ...result, target: { ...target, database: platform.location } };
  } finally {
    await platform.close();
  }
}
