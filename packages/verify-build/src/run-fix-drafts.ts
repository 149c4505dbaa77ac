import { artifactKey, mergeOverlay } from '@bvl/metadata';
import { overlayOf, type PackageScope, type PlatformContext, readOverlayRows, stageDrafts } from '@bvl/platform';
import { planFixes, type SkippedFix, verify } from '@bvl/verify';
import { patchArtifacts } from './patch-artifacts.ts';
import type { FixChange } from './run-session-store.ts';

/** Passes the fixer makes at most (each re-verifies; a fix can reveal the next). */
export const MAX_FIX_PASSES = 5;

/** What {@link fixDrafts} did. */
export interface FixReport {
  readonly changes: FixChange[];
  /** Patches it left for the agent: unsafe, conflicting, or not applicable to the body. */
  readonly skipped: Array<SkippedFix | { readonly issue: SkippedFix['issue']; readonly reason: 'does_not_apply'; readonly error: string }>;
  readonly passes: number;
}

/**
 * The deterministic fixer over the draft store: verifies the overlay, applies every patch whose
 * `fixSafety` allows (planFixes: one clearly right candidate; unsafe ones only when asked) to the
 * artifact's body — the draft, or the published artifact, which becomes a draft — stages the
 * result, and repeats until nothing more applies (at most MAX_FIX_PASSES). A view is restaged with
 * the rest of its container, so the container keeps its other views. Reports every value changed.
 */
export async function fixDrafts(ctx: PlatformContext, scope: PackageScope, options: { readonly unsafe?: boolean } = {}): Promise<FixReport> {
  const changes: FixChange[] = [];
  const skipped: FixReport['skipped'] = [];
  let passes = 0;
  const tried = new Set<string>();
  while (passes < MAX_FIX_PASSES) {
    const overlay = overlayOf(await readOverlayRows(ctx.db, scope.tenant, scope.package), scope.package);
    const { issues } = verify(overlay.published, overlay.drafts);
    const plan = planFixes(issues, options);
    if (passes === 0) skipped.push(...plan.skipped);
    const merged = mergeOverlay(overlay.published.artifacts, overlay.drafts.artifacts).merged;
    // The same patch again did not take: do not loop on it.
    const fresh = plan.fixes.filter((fix) => {
      const key = `${artifactKey(fix.artifact.type, fix.artifact.name)}\u0000${JSON.stringify(fix.ops)}`;
      if (tried.has(key)) return false;
      tried.add(key);
      return true;
    });
    const { patched, changes: changed, failed } = patchArtifacts(merged, fresh);
    changes.push(...changed);
    for (const f of failed) for (const issue of f.issues) skipped.push({ issue, reason: 'does_not_apply', error: f.error });
    if (patched.size === 0) break;
    await stageDrafts(ctx, scope, [...patched.values()]);
    passes++;
  }
  return { changes, skipped, passes };
}
