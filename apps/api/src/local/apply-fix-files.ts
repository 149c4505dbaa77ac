import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type BuildIssue, fingerprint, sortIssues } from '@bvl/build-issue';
import { fixTexts, verify } from '@bvl/verify';
import { AnswerError, choosePatches, issueIds } from '@bvl/verify-build';
import { confineTo } from './confine-path.ts';
import { filesVersion } from './files-version.ts';
import { checkFiles, type FileChange } from './fix-files.ts';
import { confineSource, type LocalSource, loadFiles } from './load-files.ts';

/** What apply_fix did to the files. */
export interface ApplyFixFilesResult {
  readonly applied: ReadonlyArray<{ readonly patchId: string; readonly issue: string; readonly code: string; readonly artifact: BuildIssue['artifact'] }>;
  readonly changes: FileChange[];
  readonly written: string[];
  readonly previousVersion: string;
  readonly draftVersion: string;
  /** Ids of the issues gone. */
  readonly fixed: string[];
  /** Issues present after and not before (what a fixed issue masked), sorted. */
  readonly issues: BuildIssue[];
  readonly errors: number;
  readonly warnings: number;
}

/**
 * `bvl mcp`'s apply_fix: the patches of issues by patch id, bound to the files' version (see
 * filesVersion), applied to the files the artifacts came from as text edits (fixTexts, one round,
 * those issues only), verified in memory before a byte is written; a stale or unknown patch id, a
 * patch that does not apply or does not fix its issue, or a file changed on disk meanwhile: an
 * AnswerError, nothing written.
 */
export async function applyFixFiles(
  cwd: string,
  source: LocalSource,
  input: { readonly patches: readonly string[]; readonly draftVersion?: string | undefined },
): Promise<ApplyFixFilesResult> {
  const files = await loadFiles(cwd, source);
  const version = filesVersion(files.published, files.drafts);
  if (input.draftVersion !== undefined && input.draftVersion !== version)
    throw new AnswerError('the files changed since these patches were offered; nothing was applied', [
      {
        path: 'draftVersion',
        message: `the patches are for version ${input.draftVersion.slice(0, 12)}…; the files are at ${version.slice(0, 12)}… now: verify again`,
      },
    ]);
  const before = sortIssues(verify(files.published, files.drafts).issues);
  const ids = issueIds(before);
  const chosen = choosePatches(input.patches, before, version);

  const wanted = new Set(chosen.map((c) => fingerprint(c.issue)));
  await confineSource(cwd, source);
  const result = await fixTexts(checkFiles(cwd, source), { unsafe: true, maxRounds: 1, select: (i) => wanted.has(fingerprint(i)) });
  if (result.skipped.length > 0)
    throw new AnswerError('patches that write one value two ways; nothing was applied', [{ path: 'patches', message: 'apply one of them' }]);
  if (result.failed.length > 0)
    throw new AnswerError('a patch does not apply to its file as it is; nothing was applied', [
      { path: 'patches', message: result.failed.map((f) => `${f.file}: ${f.error}`).join('; ') },
    ]);
  const after = sortIssues(result.last.issues);
  const afterPrints = new Set(after.map(fingerprint));
  const unfixed = chosen.filter((c) => afterPrints.has(fingerprint(c.issue)));
  if (unfixed.length > 0)
    throw new AnswerError('a patch does not fix its issue; nothing was applied', [
      { path: 'patches', message: `${unfixed.map((c) => `${c.patchId} (${c.issue.code})`).join(', ')}: still there after the patch — repair it by hand` },
    ]);
  // Every file is checked — inside the folder, and as it was read — before the first is written.
  const folder = confineTo(cwd);
  for (const file of result.files) {
    await folder.check(file);
    if ((await readFile(resolve(cwd, file), 'utf8')) !== result.original.get(file))
      throw new AnswerError('a file changed on disk while the patches were verified; nothing was applied', [
        { path: 'patches', message: `${file} changed: verify again` },
      ]);
  }
  for (const file of result.files) await writeFile(resolve(cwd, file), result.current.get(file)!);
  const beforePrints = new Set(before.map(fingerprint));
  const errors = after.filter((i) => i.severity === 'error').length;
  return {
    applied: chosen.map((c) => ({ patchId: c.patchId, issue: c.id, code: c.issue.code, artifact: c.issue.artifact })),
    changes: result.fixed.map((f) => ({ file: f.file, artifact: f.artifactRef, path: f.pointer, old: f.old, new: f.new, code: f.code })),
    written: result.files,
    previousVersion: version,
    draftVersion: filesVersion(result.last.published, result.last.drafts),
    fixed: ids.filter((_, k) => !afterPrints.has(fingerprint(before[k]!))),
    issues: after.filter((i) => !beforePrints.has(fingerprint(i))),
    errors,
    warnings: after.length - errors,
  };
}
