import { type ArtifactRef, type BuildIssue, fingerprint, type JsonPatchOp } from '@bvl/build-issue';

/** Which patches a fixer may apply: `safe` only (the default), or `unsafe` ones too (when asked). */
export interface PlanFixesOptions {
  readonly unsafe?: boolean;
}

/** The ops to apply to one artifact, and the issues they fix (by fingerprint). */
export interface ArtifactFix {
  readonly artifact: ArtifactRef;
  readonly ops: readonly JsonPatchOp[];
  readonly fixes: readonly BuildIssue[];
}

/** An issue with a patch that is left for the agent, and why. */
export interface SkippedFix {
  readonly issue: BuildIssue;
  readonly reason: 'unsafe' | 'conflict';
}

/** Result of {@link planFixes}, sorted by artifact. */
export interface FixPlan {
  readonly fixes: readonly ArtifactFix[];
  readonly skipped: readonly SkippedFix[];
}

const key = (a: ArtifactRef) => `${a.type}\u0000${a.name}`;
const touched = (op: JsonPatchOp): string[] => ('from' in op ? [op.path, op.from] : [op.path]);

/**
 * Chooses the patches a fixer applies, never guessing: an issue's patch is taken when its
 * `fixSafety` allows, and when no other chosen patch of the same artifact writes the same path
 * differently (two issues that disagree about one value are both left to the agent). Identical
 * patches from several issues are applied once. Pure; the caller applies the ops (applyPatch)
 * to the artifact bodies.
 */
export function planFixes(issues: readonly BuildIssue[], options: PlanFixesOptions = {}): FixPlan {
  const skipped: SkippedFix[] = [];
  const candidates = new Map<string, { artifact: ArtifactRef; items: Array<{ issue: BuildIssue; ops: readonly JsonPatchOp[] }> }>();
  for (const issue of issues) {
    if (!issue.patch) continue;
    if (issue.fixSafety !== 'safe' && !options.unsafe) {
      skipped.push({ issue, reason: 'unsafe' });
      continue;
    }
    const k = key(issue.artifact);
    let c = candidates.get(k);
    if (!c) candidates.set(k, (c = { artifact: issue.artifact, items: [] }));
    c.items.push({ issue, ops: issue.patch });
  }
  const fixes: ArtifactFix[] = [];
  for (const { artifact, items } of candidates.values()) {
    // Path → the distinct op sets that write it; a path written two different ways is a conflict.
    const writers = new Map<string, Set<string>>();
    for (const it of items) for (const op of it.ops) for (const p of touched(op)) writers.set(p, (writers.get(p) ?? new Set()).add(JSON.stringify(it.ops)));
    const ops: JsonPatchOp[] = [];
    const seenOps = new Set<string>();
    const fixed: BuildIssue[] = [];
    const seenIssues = new Set<string>();
    for (const it of items) {
      if (it.ops.some((op) => touched(op).some((p) => (writers.get(p)?.size ?? 0) > 1))) {
        skipped.push({ issue: it.issue, reason: 'conflict' });
        continue;
      }
      const opsKey = JSON.stringify(it.ops);
      if (!seenOps.has(opsKey)) {
        seenOps.add(opsKey);
        ops.push(...it.ops);
      }
      const fp = fingerprint(it.issue);
      if (!seenIssues.has(fp)) {
        seenIssues.add(fp);
        fixed.push(it.issue);
      }
    }
    if (ops.length > 0) fixes.push({ artifact, ops, fixes: fixed });
  }
  fixes.sort((a, b) => (key(a.artifact) < key(b.artifact) ? -1 : key(a.artifact) > key(b.artifact) ? 1 : 0));
  return { fixes, skipped };
}
