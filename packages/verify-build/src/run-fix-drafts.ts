import type { RawArtifact } from '@bvl/metadata';
import { artifactKey, mergeOverlay } from '@bvl/metadata';
import { overlayOf, type PackageScope, type PlatformContext, readOverlayRows, stageDrafts } from '@bvl/platform';
import { applyPatch, planFixes, type SkippedFix, verify } from '@bvl/verify';
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
    const patched = new Map<string, RawArtifact>();
    const containers = new Set<string>();
    for (const fix of plan.fixes) {
      const key = `${artifactKey(fix.artifact.type, fix.artifact.name)}\u0000${JSON.stringify(fix.ops)}`;
      if (tried.has(key)) continue; // the same patch again: it did not take, do not loop on it
      tried.add(key);
      const a = merged.get(artifactKey(fix.artifact.type, fix.artifact.name));
      if (!a) continue;
      // View issue paths address the stored document; the stored body is the view's config.
      const prefix = a.type === 'view' ? (a.docPrefix ?? '') : '';
      const ops = fix.ops.map((op) => ({ ...op, path: op.path.slice(prefix.length), ...('from' in op ? { from: op.from.slice(prefix.length) } : {}) }));
      const result = applyPatch(a.body, ops);
      if (!result.ok) {
        for (const issue of fix.fixes) skipped.push({ issue, reason: 'does_not_apply', error: result.error });
        continue;
      }
      patched.set(artifactKey(a.type, a.name), { ...a, body: result.value, draft: true });
      if (a.type === 'view' && a.container) containers.add(a.container);
      for (const c of result.changes) {
        const issue = fix.fixes.find((i) => i.patch?.some((op) => op.path === prefix + c.path));
        changes.push({
          artifact: fix.artifact,
          path: prefix + c.path,
          ...('old' in c ? { old: c.old } : {}),
          ...('new' in c ? { new: c.new } : {}),
          code: issue?.code ?? fix.fixes[0]!.code,
        });
      }
    }
    if (patched.size === 0) break;
    // A view is restaged with the rest of its container (a draft container replaces the whole of it).
    for (const other of merged.values()) {
      const k = artifactKey(other.type, other.name);
      if (other.type === 'view' && other.container && containers.has(other.container) && !patched.has(k)) patched.set(k, { ...other, draft: true });
    }
    await stageDrafts(ctx, scope, [...patched.values()]);
    passes++;
  }
  return { changes, skipped, passes };
}
