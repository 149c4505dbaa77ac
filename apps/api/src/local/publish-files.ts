import { mergeOverlay } from '@bvl/metadata';
import { discardDrafts, type Platform, stageDrafts, tenantSchema } from '@bvl/platform';
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
 * Publishes files to the local database the way `bvl publish` does: the files are verified first
 * (a stack that cannot pass the gate is refused before any database is opened), then the overlaid
 * stack becomes the package's drafts and is published under the package lock — publishBuild gates
 * again on the store's overlay, applies seeds and probes.
 */
export async function publishFiles(
  cwd: string,
  source: LocalSource & { readonly tenant: string; readonly package: string; readonly allowDataChange?: boolean | undefined },
  open: () => Promise<Platform>,
): Promise<PublishBuildResult & { readonly target: PublishTarget }> {
  const files = await loadFiles(cwd, source);
  const scope = { tenant: source.tenant, package: source.package };
  const target = { ...scope, schema: tenantSchema(scope.tenant) };
  const checked = verify(files.published, files.drafts);
  if (!checked.publishable)
    return {
      outcome: 'refused',
      published: false,
      ok: false,
      issues: checked.issues,
      checked: checked.checked,
      card: buildCard({ issues: checked.issues, checked: checked.checked }),
      schema: target.schema,
      session: null,
      target,
    };
  const platform = await open();
  try {
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
