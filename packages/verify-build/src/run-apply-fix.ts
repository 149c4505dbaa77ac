import { type BuildIssue, fingerprint, sortIssues } from '@bvl/build-issue';
import { artifactKey, mergeOverlay } from '@bvl/metadata';
import { type OverlayRow, overlayOf, type PackageScope, type PlatformContext, readOverlayRows, stageDrafts } from '@bvl/platform';
import { planFixes, verify } from '@bvl/verify';
import { draftHash } from './draft-hash.ts';
import { choosePatches, issueIds } from './issue-ids.ts';
import { patchArtifacts } from './patch-artifacts.ts';
import type { FixChange } from './run-session-store.ts';
import { AnswerError } from './view-options.ts';

/** What apply_fix is asked: patch ids of the latest answer, and (optionally) the draft version they came with. */
export interface ApplyFixInput extends PackageScope {
  readonly patches: readonly string[];
  /** When given, must be the drafts' version now (else nothing is applied). */
  readonly draftVersion?: string | undefined;
}

/** What apply_fix did. */
export interface ApplyFixResult {
  /** Each patch applied: its id, the issue it fixed, and the values it changed. */
  readonly applied: ReadonlyArray<{ readonly patchId: string; readonly issue: string; readonly code: string; readonly artifact: BuildIssue['artifact'] }>;
  readonly changes: FixChange[];
  /** The drafts' version before and after. */
  readonly previousVersion: string;
  readonly draftVersion: string;
  /** Ids of the issues the patches made go away. */
  readonly fixed: string[];
  /** Issues present after and not before (a patch can reveal what the fixed issue masked), sorted. */
  readonly issues: BuildIssue[];
  /** L1+L2 errors and warnings of the build after the patches. */
  readonly errors: number;
  readonly warnings: number;
}

const stale = (offered: string, now: string): AnswerError =>
  new AnswerError('the drafts changed since these patches were offered; nothing was applied', [
    {
      path: 'draftVersion',
      message: `the patches are for draft version ${offered.slice(0, 12)}…; the drafts are at ${now.slice(0, 12)}… now: verify again for fresh patch ids`,
    },
  ]);

/** The draft set's identity without some slots (what a write to those slots must leave as it is). */
const versionWithout = (rows: readonly OverlayRow[], pkg: string, slots: ReadonlySet<string>) =>
  draftHash(
    rows.filter((r) => !slots.has(artifactKey(r.type, r.name))),
    pkg,
  );

/**
 * apply_fix: applies the patches of issues by their patch ids. Each id is bound to the draft
 * version it was computed on: a patch id of other drafts, an unknown one, patches that write one
 * value two ways, a patch that no longer applies, or one that — verified in memory on the patched
 * drafts before anything is written — does not make its issue go away: each is an
 * {@link AnswerError}, and nothing is applied. The write is atomic against other draft writes: the
 * package's draft rows are locked, the version checked again, the patched artifacts staged, and
 * the other drafts checked unchanged before the commit.
 */
export async function applyFix(ctx: PlatformContext, input: ApplyFixInput): Promise<ApplyFixResult> {
  const scope = { tenant: input.tenant, package: input.package };
  const rows = await readOverlayRows(ctx.db, scope.tenant, scope.package);
  const version = draftHash(rows, scope.package);
  if (input.draftVersion !== undefined && input.draftVersion !== version) throw stale(input.draftVersion, version);
  const overlay = overlayOf(rows, scope.package);
  const before = sortIssues(verify(overlay.published, overlay.drafts).issues);
  const ids = issueIds(before);
  const chosen = choosePatches(input.patches, before, version);

  const plan = planFixes(
    chosen.map((c) => c.issue),
    { unsafe: true },
  );
  if (plan.skipped.length > 0) {
    const ofIssue = (i: BuildIssue) => chosen.find((c) => c.issue === i)!.patchId;
    throw new AnswerError('patches that write one value two ways; nothing was applied', [
      { path: 'patches', message: `${plan.skipped.map((s) => ofIssue(s.issue)).join(', ')} write the same place differently: apply one of them` },
    ]);
  }
  const merged = mergeOverlay(overlay.published.artifacts, overlay.drafts.artifacts).merged;
  const { patched, changes, failed } = patchArtifacts(merged, plan.fixes);
  if (failed.length > 0)
    throw new AnswerError('a patch does not apply to the artifact as it is; nothing was applied', [
      { path: 'patches', message: failed.map((f) => `${f.artifact.type} ${f.artifact.name}: ${f.error}`).join('; ') },
    ]);

  // Verified in memory on the patched drafts before anything is written.
  const drafts = [...overlay.drafts.artifacts.filter((a) => !patched.has(artifactKey(a.type, a.name))), ...patched.values()];
  const after = sortIssues(verify(overlay.published, { ...overlay.drafts, artifacts: drafts }).issues);
  const afterPrints = new Set(after.map(fingerprint));
  const unfixed = chosen.filter((c) => afterPrints.has(fingerprint(c.issue)));
  if (unfixed.length > 0)
    throw new AnswerError('a patch does not fix its issue; nothing was applied', [
      {
        path: 'patches',
        message: `${unfixed.map((c) => `${c.patchId} (${c.issue.code})`).join(', ')}: the issue is still there after the patch — repair it by hand`,
      },
    ]);

  const slots = new Set(patched.keys());
  const expected = versionWithout(rows, scope.package, slots);
  let next = version;
  await ctx.db.transaction().execute(async (trx) => {
    const pinned = { ...ctx, db: trx };
    // A write to one of these rows waits for this one; a new row is caught by the check after.
    await trx
      .selectFrom('bvl.metadata_items')
      .select('name')
      .where('tenant_id', '=', scope.tenant)
      .where('package', '=', scope.package)
      .where('state', '=', 'draft')
      .forUpdate()
      .execute();
    const locked = draftHash(await readOverlayRows(trx, scope.tenant, scope.package), scope.package);
    if (locked !== version) throw stale(version, locked);
    await stageDrafts(pinned, scope, [...patched.values()]);
    const written = await readOverlayRows(trx, scope.tenant, scope.package);
    const others = versionWithout(written, scope.package, slots);
    next = draftHash(written, scope.package);
    if (others !== expected) throw stale(version, next);
  });

  const beforePrints = new Set(before.map(fingerprint));
  const errors = after.filter((i) => i.severity === 'error').length;
  return {
    applied: chosen.map((c) => ({ patchId: c.patchId, issue: c.id, code: c.issue.code, artifact: c.issue.artifact })),
    changes,
    previousVersion: version,
    draftVersion: next,
    fixed: ids.filter((_, k) => !afterPrints.has(fingerprint(before[k]!))),
    issues: after.filter((i) => !beforePrints.has(fingerprint(i))),
    errors,
    warnings: after.length - errors,
  };
}
