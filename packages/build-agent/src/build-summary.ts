import type { BuildIssue } from '@bvl/build-issue';

/** Errors a summary names at most; the issues list carries them all. */
export const MAX_SUMMARY_ERRORS = 5;

/**
 * One paragraph saying how the build ended and what remains: the stop reason and why, then the
 * errors left (code, artifact, path), and that the build stays draft unless it published clean. Pure.
 */
export function buildSummary(input: {
  readonly stopReason: string | null;
  readonly why: string;
  readonly published: boolean;
  readonly rounds: number;
  readonly issues: readonly BuildIssue[];
  readonly error?: string | undefined;
  /** A clean build whose last turn crossed a budget: by how much. */
  readonly overrun?: string | undefined;
  /** Problems beside the build (a transcript not stored): named at the end, never a failure. */
  readonly warnings?: readonly string[] | undefined;
}): string {
  const note = input.warnings?.length ? ` (warning: ${input.warnings.join('; ')})` : '';
  return summaryOf(input) + note;
}

function summaryOf(input: Parameters<typeof buildSummary>[0]): string {
  const errors = input.issues.filter((i) => i.severity === 'error');
  const warnings = input.issues.length - errors.length;
  const w = warnings ? `; ${warnings} warning(s)` : '';
  if (input.stopReason === 'clean' && errors.length === 0)
    return `published clean after ${input.rounds} round(s)${w}${input.overrun ? ` (the last turn went over budget: ${input.overrun})` : ''}`;
  const named = errors.slice(0, MAX_SUMMARY_ERRORS).map((i) => `${i.code} on ${i.artifact.type} ${i.artifact.name}${i.path ? ` at ${i.path}` : ''}`);
  const more = errors.length > MAX_SUMMARY_ERRORS ? `, and ${errors.length - MAX_SUMMARY_ERRORS} more` : '';
  const remain = errors.length ? `${errors.length} error(s) remain: ${named.join('; ')}${more}` : 'no error remains';
  const state = input.published ? 'the last publish is live; later drafts stay draft' : 'the build stays draft (nothing was published)';
  return `stopped (${input.stopReason ?? 'unknown'}): ${input.error ?? input.why}; ${remain}${w}; ${state}`;
}
