import type { BuildIssue } from '@bvl/build-issue';
import { artifactKey, type RawArtifact } from '@bvl/metadata';
import { type ArtifactFix, applyPatch } from '@bvl/verify';
import type { FixChange } from './run-session-store.ts';

/** What {@link patchArtifacts} made of the planned fixes. */
export interface PatchedArtifacts {
  /** The patched artifacts (drafts now), and the other views of each patched view's container, by artifact key. */
  readonly patched: Map<string, RawArtifact>;
  /** Every value changed. */
  readonly changes: FixChange[];
  /** Fixes whose ops do not apply to the body as it is. */
  readonly failed: Array<{ readonly artifact: ArtifactFix['artifact']; readonly issues: readonly BuildIssue[]; readonly error: string }>;
}

/**
 * Applies planned fixes (planFixes) to the overlay's bodies in memory — a draft, or the published
 * artifact, which becomes a draft — and reports every value changed. View issue paths address the
 * stored document, the body is the view's config: the document prefix is taken off. A patched
 * view brings the rest of its container along (a draft container replaces the whole of it). Pure:
 * the caller stages the result (fixDrafts, applyFix).
 */
export function patchArtifacts(merged: ReadonlyMap<string, RawArtifact>, fixes: readonly ArtifactFix[]): PatchedArtifacts {
  const patched = new Map<string, RawArtifact>();
  const changes: FixChange[] = [];
  const failed: PatchedArtifacts['failed'] = [];
  const containers = new Set<string>();
  for (const fix of fixes) {
    const k = artifactKey(fix.artifact.type, fix.artifact.name);
    const a = patched.get(k) ?? merged.get(k);
    if (!a) {
      failed.push({ artifact: fix.artifact, issues: fix.fixes, error: `${fix.artifact.type} ${fix.artifact.name} is not in the build` });
      continue;
    }
    const prefix = a.type === 'view' ? (a.docPrefix ?? '') : '';
    const ops = fix.ops.map((op) => ({ ...op, path: op.path.slice(prefix.length), ...('from' in op ? { from: op.from.slice(prefix.length) } : {}) }));
    const result = applyPatch(a.body, ops);
    if (!result.ok) {
      failed.push({ artifact: fix.artifact, issues: fix.fixes, error: result.error });
      continue;
    }
    patched.set(k, { ...a, body: result.value, draft: true });
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
  for (const other of merged.values()) {
    const k = artifactKey(other.type, other.name);
    if (other.type === 'view' && other.container && containers.has(other.container) && !patched.has(k)) patched.set(k, { ...other, draft: true });
  }
  return { patched, changes, failed };
}
