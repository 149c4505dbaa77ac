import { type BuildIssue, fingerprint } from '@bvl/build-issue';
import { AnswerError, type AnswerProblem, versionTag } from './view-options.ts';

/**
 * Each issue's id in an answer: its fingerprint (what sessions record, so a round's diff names
 * issues by the same ids), with `~2`, `~3`, … on a repeat (two issues about the same member that
 * differ only in their message). Issues must come sorted: the ids are then stable.
 */
export function issueIds(issues: readonly BuildIssue[]): string[] {
  const seen = new Map<string, number>();
  return issues.map((i) => {
    const fp = fingerprint(i);
    const n = (seen.get(fp) ?? 0) + 1;
    seen.set(fp, n);
    return n === 1 ? fp : `${fp}~${n}`;
  });
}

/** The id of an issue's patch: bound to the draft version it was computed on, so a patch offered on other drafts is refused. */
export const patchIdOf = (draftVersion: string, issueId: string): string => `${versionTag(draftVersion)}.${issueId}`;

/**
 * The issue id a patch id names, checked against the drafts as they are now: a patch id of other
 * drafts is stale (an {@link AnswerError} naming both versions), one that is not a patch id is
 * unknown.
 */
export function issueOfPatchId(patchId: string, draftVersion: string, path: string): string {
  const m = /^([0-9a-f]{12})\.([0-9a-f]{16}(?:~\d+)?)$/.exec(patchId);
  if (!m)
    throw new AnswerError('an unknown patch id', [
      { path, message: `${JSON.stringify(patchId.slice(0, 80))} is not a patch id bvl gave (patchId of an issue)` },
    ]);
  if (m[1] !== versionTag(draftVersion))
    throw new AnswerError('a patch was offered on drafts that have changed since', [
      {
        path,
        message: `patch ${patchId} was computed on draft version ${m[1]}…; the drafts are at ${versionTag(draftVersion)}… now: verify again for fresh patch ids`,
      },
    ]);
  return m[2]!;
}

/** Patch ids one apply_fix takes at most. */
export const MAX_PATCHES = 100;

/** An issue a patch id chose. */
export interface ChosenPatch {
  readonly patchId: string;
  readonly id: string;
  readonly issue: BuildIssue;
}

/**
 * The issues the patch ids name among `issues` (sorted, as the answers that offered them): each id
 * must be of this draft version and name an issue with a patch, else an {@link AnswerError} lists
 * every problem. What apply_fix runs on the store and `bvl mcp` on files.
 */
export function choosePatches(patchIds: readonly string[], issues: readonly BuildIssue[], draftVersion: string): ChosenPatch[] {
  if (patchIds.length === 0)
    throw new AnswerError('no patch ids given', [{ path: 'patches', message: 'pass one or more patchId values of the latest answer' }]);
  if (patchIds.length > MAX_PATCHES)
    throw new AnswerError(`at most ${MAX_PATCHES} patches at once`, [{ path: 'patches', message: `${patchIds.length} given` }]);
  const ids = issueIds(issues);
  const problems: AnswerProblem[] = [];
  const chosen: ChosenPatch[] = [];
  for (const [k, patchId] of [...new Set(patchIds)].entries()) {
    const id = issueOfPatchId(patchId, draftVersion, `patches.${k}`);
    const issue = issues[ids.indexOf(id)];
    if (issue?.patch) chosen.push({ patchId, id, issue });
    else
      problems.push({
        path: `patches.${k}`,
        message: `no issue at draft version ${versionTag(draftVersion)}… has patch ${patchId}: verify again for the patch ids it offers`,
      });
  }
  if (problems.length) throw new AnswerError('an unknown patch id; nothing was applied', problems);
  return chosen;
}
