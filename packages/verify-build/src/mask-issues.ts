import type { BuildIssue, IssueCode } from '@bvl/build-issue';

/**
 * Checks an issue hides until it is fixed: while a widget (or a list view's chart) is bound to a
 * dataset that does not exist, its measures, dimensions, chart axes, dashboard filters and query
 * cannot be judged, so those rules emit nothing for it (graph-lint and render-contract skip a
 * widget with no dataset). A masked check is not passed: it is not run.
 */
export const MASKS: Partial<Record<IssueCode, readonly IssueCode[]>> = {
  dangling_dataset: [
    'unknown_measure',
    'unknown_dimension',
    'chart_field_unknown',
    'dashboard_filter_field_unknown',
    'field_type_mismatch',
    'dataset_compile_error',
  ],
};

/** The codes an issue keeps from being checked on its member (see {@link MASKS}), or undefined. */
export const masksOf = (issue: BuildIssue): readonly IssueCode[] | undefined => MASKS[issue.code as IssueCode];

/** The part of an artifact an issue's checks are about: its member (a widget id), or its path without the `dataset` key. */
function scopeOf(issue: BuildIssue): { member?: string; path?: string } {
  const self = issue.ref && issue.ref.type === issue.artifact.type && issue.ref.name === issue.artifact.name ? issue.ref.member : undefined;
  const path = issue.path?.replace(/\/dataset$/, '');
  return { ...(self !== undefined ? { member: self } : {}), ...(path ? { path } : {}) };
}

/**
 * Whether `masker` keeps `issue` from being checked: the same artifact, a code it masks, and the
 * same member (a widget of a dashboard) or a place inside its scope (a list view's chart).
 */
export function masks(masker: BuildIssue, issue: BuildIssue): boolean {
  const codes = masksOf(masker);
  if (!codes?.includes(issue.code as IssueCode)) return false;
  if (masker.artifact.type !== issue.artifact.type || masker.artifact.name !== issue.artifact.name) return false;
  const m = scopeOf(masker);
  const i = scopeOf(issue);
  if (m.member !== undefined && i.member !== undefined) return m.member === i.member;
  return m.path !== undefined && issue.path !== undefined && (issue.path === m.path || issue.path.startsWith(`${m.path}/`));
}

/** The first of `current` that masks `issue`, or undefined. */
export const maskerOf = (issue: BuildIssue, current: readonly BuildIssue[]): BuildIssue | undefined => current.find((m) => masks(m, issue));
