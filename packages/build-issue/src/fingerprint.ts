import { createHash } from 'node:crypto';
import type { BuildIssue } from './build-issue.ts';

/**
 * A stable hash of what an issue is *about* — layer, code, artifact, ref and path — never its
 * message, so a reworded message keeps its fingerprint across rounds.
 */
export function fingerprint(issue: BuildIssue): string {
  const key = [
    issue.layer,
    issue.code,
    issue.artifact.type,
    issue.artifact.name,
    issue.ref?.type ?? '',
    issue.ref?.name ?? '',
    issue.ref?.member ?? '',
    issue.path ?? '',
  ];
  return createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16);
}
