import { type BuildIssue, fingerprint } from '@bvl/build-issue';
import type { ArtifactType, RawArtifact } from '@bvl/metadata';
import { discardDrafts, type PackageScope, type PlatformContext, readOverlay, readOverlayRows, stageDrafts, stageTombstones } from '@bvl/platform';
import { verify } from '@bvl/verify';
import { expandArtifact } from './expand-artifact.ts';

/** What a draft write answers: what it wrote and the L1 issues it caused. */
export interface WriteResult {
  readonly staged: number;
  readonly artifacts: ReadonlyArray<{ readonly type: string; readonly name: string }>;
  /** L1 issues present after the write and absent before it (by fingerprint), sorted. */
  readonly issues: BuildIssue[];
  /** L1 issues the write made go away. */
  readonly resolved: number;
  /** L1 errors and warnings of the package overlay after the write. */
  readonly errors: number;
  readonly warnings: number;
}

const GRAPH_ONLY = new Set(['graph'] as const);

/** L1 over the package's overlay: the same `verify` every surface runs, graph layer only. */
async function lint(ctx: PlatformContext, scope: PackageScope): Promise<BuildIssue[]> {
  const overlay = await readOverlay(ctx, scope);
  return verify(overlay.published, overlay.drafts, { layers: GRAPH_ONLY }).issues;
}

/**
 * Runs a draft write between two L1 passes and reports the difference, as ObjectStack's runtime
 * gate answers a staged write with what it broke: issues the write caused, and how many it cleared.
 */
async function withL1Diff(ctx: PlatformContext, scope: PackageScope, write: () => Promise<{ staged: number; artifacts: WriteResult['artifacts'] }>) {
  const before = new Set((await lint(ctx, scope)).map(fingerprint));
  const { staged, artifacts } = await write();
  const after = await lint(ctx, scope);
  const now = new Set(after.map(fingerprint));
  return {
    staged,
    artifacts,
    issues: after.filter((i) => !before.has(fingerprint(i))),
    resolved: [...before].filter((f) => !now.has(f)).length,
    errors: after.filter((i) => i.severity === 'error').length,
    warnings: after.filter((i) => i.severity === 'warning').length,
  } satisfies WriteResult;
}

const containerOf = (body: unknown): string | undefined => {
  const c = (body as { container?: unknown } | null)?.container;
  return typeof c === 'string' ? c : undefined;
};

/**
 * Stages one artifact (its body as in the stack format, expanded as a stack file loads it) as a
 * draft of the package. A view container replaces the package's draft of that container: a view the
 * new body drops is discarded with it, as a draft container replaces the published one.
 */
export async function stageArtifact(
  ctx: PlatformContext,
  scope: PackageScope,
  input: { readonly type: ArtifactType; readonly name: string; readonly body: unknown },
): Promise<WriteResult> {
  const artifacts: RawArtifact[] = expandArtifact(input.type, input.name, input.body);
  return withL1Diff(ctx, scope, async () => {
    const containers = new Set(artifacts.flatMap((a) => (a.container ? [a.container] : [])));
    if (containers.size > 0) {
      const keep = new Set(artifacts.map((a) => `${a.type}\u0000${a.name}`));
      const stale = (await readOverlayRows(ctx.db, scope.tenant, scope.package)).filter(
        (r) =>
          r.state === 'draft' &&
          r.package === scope.package &&
          r.type === 'view' &&
          !keep.has(`${r.type}\u0000${r.name}`) &&
          containers.has(containerOf(r.body) ?? ''),
      );
      if (stale.length > 0) await discardDrafts(ctx, scope, stale);
    }
    const { staged } = await stageDrafts(ctx, scope, artifacts);
    return { staged, artifacts: artifacts.map((a) => ({ type: a.type, name: a.name })) };
  });
}

/** Stages a tombstone retiring an artifact the package publishes; answers with the L1 issues that causes (what dangles now). */
export async function retireArtifact(
  ctx: PlatformContext,
  scope: PackageScope,
  ref: { readonly type: ArtifactType; readonly name: string },
): Promise<WriteResult> {
  return withL1Diff(ctx, scope, async () => {
    const { staged } = await stageTombstones(ctx, scope, [ref]);
    return { staged, artifacts: [{ type: ref.type, name: ref.name }] };
  });
}
