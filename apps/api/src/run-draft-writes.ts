import { createHash } from 'node:crypto';
import { type BuildIssue, fingerprint, sortIssues } from '@bvl/build-issue';
import type { ArtifactType, RawArtifact } from '@bvl/metadata';
import {
  discardDrafts,
  type OverlayRow,
  overlayOf,
  type PackageScope,
  type PlatformContext,
  readOverlayRows,
  stageDrafts,
  stageTombstones,
} from '@bvl/platform';
import { draftHash, issueIds } from '@bvl/verify-build';
import { checkArtifactBounds, checkPackageBounds } from './draft-bounds.ts';
import { expandArtifact } from './expand-artifact.ts';
import { ApiError } from './to-error-response.ts';
import { verifyOffloaded } from './verify-offload.ts';

/** What a draft write answers: what it wrote and the L1 issues it caused. */
export interface WriteResult {
  readonly staged: number;
  readonly artifacts: ReadonlyArray<{ readonly type: string; readonly name: string }>;
  /** L1 issues present after the write and absent before it (by fingerprint), sorted. */
  readonly issues: BuildIssue[];
  /** Their ids (as every answer names issues). */
  readonly issueIds: string[];
  /** The drafts' version after the write: the patch ids of `issues` are bound to it. */
  readonly draftVersion: string;
  /** L1 issues the write made go away. */
  readonly resolved: number;
  /** L1 errors and warnings of the package overlay after the write. */
  readonly errors: number;
  readonly warnings: number;
}

const GRAPH_ONLY = new Set(['graph'] as const);

/** What an overlay is, for L1: every row's slot, state, source and content (L1 reads nothing else). */
const overlayKey = (rows: readonly OverlayRow[], pkg: string): string => {
  const h = createHash('sha256').update(pkg);
  for (const r of rows)
    h.update(
      `\u0000${r.type}\u0000${r.name}\u0000${r.package}\u0000${r.state}\u0000${r.tombstone ? 1 : 0}\u0000${r.contentHash}\u0000${JSON.stringify(r.source ?? null)}`,
    );
  return h.digest('hex');
};

/**
 * L1 answers by overlay (see overlayKey), the most recent few: L1 is a pure function of the
 * overlay, and a write's "before" pass is usually the overlay the previous write's "after" pass
 * linted — so a package staged draft by draft lints once per write, not twice.
 */
const L1_CACHE = new Map<string, BuildIssue[]>();
const L1_CACHE_SIZE = 32;

/** L1 over the package's overlay (the same `verify` every surface runs, graph layer only; a large overlay on a worker thread), sorted, and the drafts' version; `read`: the rows, already read. */
async function lint(ctx: PlatformContext, scope: PackageScope, read?: OverlayRow[]): Promise<{ issues: BuildIssue[]; draftVersion: string }> {
  const rows = read ?? (await readOverlayRows(ctx.db, scope.tenant, scope.package));
  const draftVersion = draftHash(rows, scope.package);
  const key = overlayKey(rows, scope.package);
  const known = L1_CACHE.get(key);
  if (known) {
    L1_CACHE.delete(key);
    L1_CACHE.set(key, known);
    return { issues: known, draftVersion };
  }
  const overlay = overlayOf(rows, scope.package);
  const { issues } = await verifyOffloaded(overlay.published, overlay.drafts, { layers: GRAPH_ONLY });
  const sorted = sortIssues(issues);
  L1_CACHE.set(key, sorted);
  if (L1_CACHE.size > L1_CACHE_SIZE) L1_CACHE.delete(L1_CACHE.keys().next().value!);
  return { issues: sorted, draftVersion };
}

/**
 * Runs a draft write between two L1 passes and reports the difference, as ObjectStack's runtime
 * gate answers a staged write with what it broke: issues the write caused, and how many it cleared.
 */
async function withL1Diff(
  ctx: PlatformContext,
  scope: PackageScope,
  write: () => Promise<{ staged: number; artifacts: WriteResult['artifacts'] }>,
  rowsBefore?: OverlayRow[],
) {
  const before = new Set((await lint(ctx, scope, rowsBefore)).issues.map(fingerprint));
  const { staged, artifacts } = await write();
  const { issues: after, draftVersion } = await lint(ctx, scope);
  const now = new Set(after.map(fingerprint));
  const ids = issueIds(after);
  const caused = after.flatMap((i, k) => (before.has(fingerprint(i)) ? [] : [k]));
  return {
    staged,
    artifacts,
    issues: caused.map((k) => after[k]!),
    issueIds: caused.map((k) => ids[k]!),
    draftVersion,
    resolved: [...before].filter((f) => !now.has(f)).length,
    errors: after.filter((i) => i.severity === 'error').length,
    warnings: after.filter((i) => i.severity === 'warning').length,
  } satisfies WriteResult;
}

const containerOf = (body: unknown): string | undefined => {
  const c = (body as { container?: unknown } | null)?.container;
  return typeof c === 'string' ? c : undefined;
};

/** One artifact to stage: its type, name and body as in the stack format. */
export interface StageInput {
  readonly type: ArtifactType;
  readonly name: string;
  readonly body: unknown;
}

/**
 * Stages artifacts (each body as in the stack format, expanded as a stack file loads it) as drafts
 * of the package, in one write between two L1 passes: the answer lists the L1 issues they caused
 * together. A view container replaces the package's draft of that container: a view the new body
 * drops is discarded with it, as a draft container replaces the published one. An artifact that
 * cannot be expanded refuses the whole call (ApiError naming its index); nothing is staged. So
 * does one past the CLI's input bounds, alone or with the package's other drafts (413, see
 * draft-bounds.ts).
 */
export async function stageArtifacts(ctx: PlatformContext, scope: PackageScope, inputs: readonly StageInput[]): Promise<WriteResult> {
  const artifacts: RawArtifact[] = inputs.flatMap((input, k) => {
    const at = inputs.length === 1 ? 'body' : `artifacts.${k}.body`;
    // Counted before the expansion: refusing an over-bound body costs no more than a count.
    checkArtifactBounds(input, at);
    let expanded: RawArtifact[];
    try {
      expanded = expandArtifact(input.type, input.name, input.body);
    } catch (e) {
      if (inputs.length === 1 || !(e instanceof ApiError)) throw e;
      throw new ApiError(
        e.code,
        `artifacts.${k} (${input.type} ${JSON.stringify(input.name)}): ${e.message}`,
        e.problems?.map((p) => ({ ...p, path: `artifacts.${k}.${p.path}` })),
      );
    }
    return expanded;
  });
  const rows = await readOverlayRows(ctx.db, scope.tenant, scope.package);
  // A view container replaces its draft views: those the new body drops are discarded.
  const containers = new Set(artifacts.flatMap((a) => (a.container ? [a.container] : [])));
  const keep = new Set(artifacts.map((a) => `${a.type}\u0000${a.name}`));
  const stale =
    containers.size === 0
      ? []
      : rows.filter(
          (r) =>
            r.state === 'draft' &&
            r.package === scope.package &&
            r.type === 'view' &&
            !keep.has(`${r.type}\u0000${r.name}`) &&
            containers.has(containerOf(r.body) ?? ''),
        );
  checkPackageBounds(scope.package, rows, artifacts, new Set(stale.map((r) => `${r.type}\u0000${r.name}`)));
  return withL1Diff(
    ctx,
    scope,
    async () => {
      if (stale.length > 0) await discardDrafts(ctx, scope, stale);
      const { staged } = await stageDrafts(ctx, scope, artifacts);
      return { staged, artifacts: artifacts.map((a) => ({ type: a.type, name: a.name })) };
    },
    rows,
  );
}

/** Stages one artifact (see {@link stageArtifacts}). */
export const stageArtifact = (ctx: PlatformContext, scope: PackageScope, input: StageInput): Promise<WriteResult> => stageArtifacts(ctx, scope, [input]);

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
