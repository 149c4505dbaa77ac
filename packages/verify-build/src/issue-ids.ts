import { type BuildIssue, fingerprint } from '@bvl/build-issue';
import { AnswerError, versionTag } from './view-options.ts';

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
