import { type BuildIssue, LAYERS } from './build-issue.ts';

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A total order on issues: errors first, then layer, artifact, path, code, ref and message, with the
 * full JSON as the last tie-break, so output is byte-stable whatever order the rules ran in.
 */
export function compareIssues(a: BuildIssue, b: BuildIssue): number {
  return (
    (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1) ||
    LAYERS.indexOf(a.layer) - LAYERS.indexOf(b.layer) ||
    cmp(a.artifact.type, b.artifact.type) ||
    cmp(a.artifact.name, b.artifact.name) ||
    cmp(a.path ?? '', b.path ?? '') ||
    cmp(a.code, b.code) ||
    cmp(a.ref?.type ?? '', b.ref?.type ?? '') ||
    cmp(a.ref?.name ?? '', b.ref?.name ?? '') ||
    cmp(a.ref?.member ?? '', b.ref?.member ?? '') ||
    cmp(a.message, b.message) ||
    cmp(JSON.stringify(a), JSON.stringify(b))
  );
}

/** Returns a new array of the issues in the total order of {@link compareIssues}. */
export function sortIssues(issues: readonly BuildIssue[]): BuildIssue[] {
  return [...issues].sort(compareIssues);
}
