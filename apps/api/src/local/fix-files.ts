import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ArtifactRef, BuildIssue, JsonPatchOp } from '@bvl/build-issue';
import type { RawArtifact } from '@bvl/metadata';
import { applyPatch, planFixes, verify } from '@bvl/verify';
import { MAX_FIX_PASSES } from '@bvl/verify-build';
import { type LocalSource, loadFiles } from './load-files.ts';

/** A value the fixer changed in a file. `path` addresses the artifact's document (as the issue's does). */
export interface FileChange {
  readonly file: string;
  readonly artifact: ArtifactRef;
  readonly path: string;
  readonly old?: unknown;
  readonly new?: unknown;
  readonly code: string;
}

/** A patch left for the agent, and why. */
export interface SkippedPatch {
  readonly artifact: ArtifactRef;
  readonly code: string;
  readonly path?: string | undefined;
  readonly reason: 'unsafe' | 'conflict' | 'stack_file' | 'does_not_apply';
  readonly patch?: readonly JsonPatchOp[] | undefined;
  readonly detail?: string | undefined;
}

/** What {@link fixFiles} did, and the verification of the files afterwards. */
export interface FixFilesResult {
  readonly changes: FileChange[];
  readonly skipped: SkippedPatch[];
  /** Files rewritten (none on a dry run). */
  readonly written: string[];
  readonly passes: number;
  readonly dryRun: boolean;
  readonly ok: boolean;
  readonly issues: BuildIssue[];
}

const slot = (a: { type: string; name: string }) => `${a.type}\u0000${a.name}`;

/** Where an artifact's stored document sits in its file: a view's pointer less its place in the document. */
function documentPointer(a: RawArtifact): string {
  const prefix = a.type === 'view' ? (a.docPrefix ?? '') : '';
  return prefix && a.source.pointer.endsWith(prefix) ? a.source.pointer.slice(0, -prefix.length) : a.source.pointer;
}

/**
 * The deterministic fixer over files: verifies the app (and drafts), takes the patches planFixes
 * allows (safe ones; unsafe ones only when asked), applies each to the artifact's document inside
 * the per-artifact file it was loaded from, writes the file back, and repeats until nothing more
 * applies (at most MAX_FIX_PASSES). Only files of a folder are rewritten: an artifact of a stack file
 * keeps its patch in `skipped` (reason `stack_file`) for the agent to apply. A file is written as
 * 2-space JSON.
 */
export async function fixFiles(
  cwd: string,
  source: LocalSource,
  options: { readonly unsafe?: boolean | undefined; readonly dryRun?: boolean | undefined } = {},
): Promise<FixFilesResult> {
  const changes: FileChange[] = [];
  const skipped: SkippedPatch[] = [];
  const written = new Set<string>();
  const tried = new Set<string>();
  let passes = 0;
  let issues: BuildIssue[] = [];
  while (true) {
    const files = await loadFiles(cwd, source);
    issues = verify(files.published, files.drafts).issues;
    if (passes >= MAX_FIX_PASSES || (options.dryRun && passes > 0)) break;
    const plan = planFixes(issues, { unsafe: options.unsafe ?? false });
    if (passes === 0)
      for (const s of plan.skipped)
        skipped.push({ artifact: s.issue.artifact, code: s.issue.code, path: s.issue.path, reason: s.reason, patch: s.issue.patch });
    const drafts = new Map((files.drafts?.artifacts ?? []).map((a) => [slot(a), a]));
    const published = new Map(files.published.artifacts.map((a) => [slot(a), a]));
    const perFile = new Map<string, Array<{ fix: (typeof plan.fixes)[number]; base: string }>>();
    for (const fix of plan.fixes) {
      const key = `${slot(fix.artifact)}\u0000${JSON.stringify(fix.ops)}`;
      if (tried.has(key)) continue; // the same patch again: it did not take, do not loop on it
      tried.add(key);
      const fromDrafts = drafts.get(slot(fix.artifact));
      const a = fromDrafts ?? published.get(slot(fix.artifact));
      const inFolder = fromDrafts ? files.folders.drafts : files.folders.published;
      if (!a?.source.file || !inFolder) {
        for (const i of fix.fixes)
          skipped.push({
            artifact: i.artifact,
            code: i.code,
            path: i.path,
            reason: 'stack_file',
            patch: i.patch,
            detail: 'bvl mcp rewrites only the per-artifact files of a folder; apply the patch to the stack yourself',
          });
        continue;
      }
      const list = perFile.get(a.source.file) ?? [];
      list.push({ fix, base: documentPointer(a) });
      perFile.set(a.source.file, list);
    }
    if (perFile.size === 0) break;
    let changed = false;
    for (const [file, fixes] of [...perFile].sort(([x], [y]) => (x < y ? -1 : 1))) {
      const full = resolve(cwd, file);
      let doc: unknown = JSON.parse(await readFile(full, 'utf8'));
      let fileChanged = false;
      for (const { fix, base } of fixes) {
        const ops = fix.ops.map((op) => ({ ...op, path: base + op.path, ...('from' in op ? { from: base + op.from } : {}) }) as JsonPatchOp);
        const r = applyPatch(doc, ops);
        if (!r.ok) {
          for (const i of fix.fixes)
            skipped.push({ artifact: i.artifact, code: i.code, path: i.path, reason: 'does_not_apply', patch: i.patch, detail: r.error });
          continue;
        }
        doc = r.value;
        fileChanged = changed = true;
        for (const c of r.changes) {
          const path = c.path.slice(base.length);
          const issue = fix.fixes.find((i) => i.patch?.some((op) => op.path === path)) ?? fix.fixes[0]!;
          changes.push({ file, artifact: fix.artifact, path, ...('old' in c ? { old: c.old } : {}), ...('new' in c ? { new: c.new } : {}), code: issue.code });
        }
      }
      if (!options.dryRun && fileChanged) {
        await writeFile(full, `${JSON.stringify(doc, null, 2)}\n`);
        written.add(file);
      }
    }
    passes++;
    if (!changed) break;
  }
  return { changes, skipped, written: [...written].sort(), passes, dryRun: options.dryRun ?? false, ok: !issues.some((i) => i.severity === 'error'), issues };
}
