import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ArtifactRef, BuildIssue, JsonPatchOp } from '@bvl/build-issue';
import { readSource, textsOf } from '@bvl/metadata';
import { fixTexts, verify } from '@bvl/verify';
import { confineTo } from './confine-path.ts';
import { confineSource, type LocalSource } from './load-files.ts';

/** A value the fixer changed in a file; `path` is the RFC 6901 pointer into that file. */
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
  readonly reason: 'unsafe' | 'conflict' | 'does_not_apply';
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

/**
 * What the file fixer (fixTexts) verifies each round: the app and its drafts read with the texts
 * changed so far, verified; the sets are kept (a version of the files can be taken of them).
 */
export function checkFiles(cwd: string, source: LocalSource) {
  return async (changed: ReadonlyMap<string, string>) => {
    const published = await readSource(source.path, { cwd, overrides: changed });
    const drafts = source.drafts !== undefined ? await readSource(source.drafts, { draft: true, cwd, overrides: changed }) : undefined;
    const v = verify(published, drafts);
    return { issues: v.issues, graph: v.graph, texts: textsOf([published, drafts]), published, drafts };
  };
}

/**
 * `bvl mcp`'s fix tool: the file fixer `bvl fix` runs (fixTexts: safe patches, unsafe ones when
 * asked, applied as text edits that keep each file's formatting — stack JSON, folder and array
 * files alike — repeated until nothing more applies), then the changed files written back.
 */
export async function fixFiles(
  cwd: string,
  source: LocalSource,
  options: { readonly unsafe?: boolean | undefined; readonly dryRun?: boolean | undefined } = {},
): Promise<FixFilesResult> {
  await confineSource(cwd, source);
  const result = await fixTexts(checkFiles(cwd, source), { unsafe: options.unsafe });
  if (!options.dryRun) {
    // Every file is checked before the first is written: the fix lands whole inside the folder, or not at all.
    const folder = confineTo(cwd);
    for (const file of result.files) await folder.check(file);
    for (const file of result.files) await writeFile(resolve(cwd, file), result.current.get(file)!);
  }
  const skipped: SkippedPatch[] = result.skipped.map((s) => ({
    artifact: s.issue.artifact,
    code: s.issue.code,
    path: s.issue.path,
    reason: s.reason,
    patch: s.issue.patch,
  }));
  for (const f of result.failed)
    for (const code of f.codes) {
      const [type = '', ...name] = f.artifact.split(' ');
      skipped.push({ artifact: { type, name: name.join(' ') }, code, reason: 'does_not_apply', detail: `${f.file}: ${f.error}` });
    }
  const issues = [...result.last.issues];
  return {
    changes: result.fixed.map((f) => ({ file: f.file, artifact: f.artifactRef, path: f.pointer, old: f.old, new: f.new, code: f.code })),
    skipped,
    written: options.dryRun ? [] : result.files,
    passes: result.rounds,
    dryRun: options.dryRun ?? false,
    ok: !issues.some((i) => i.severity === 'error'),
    issues,
  };
}
