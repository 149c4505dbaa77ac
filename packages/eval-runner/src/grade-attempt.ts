import type { IssueEvidence } from './evidence.ts';
import { type AssertionResult, outcomeOf } from './grade.ts';

/** How an attempt ended: graded `pass` or `fail`, `limit` (a budget, the time limit, rate limits), or `error` (infrastructure). */
export const EVAL_STATUSES = ['pass', 'fail', 'error', 'limit'] as const;
export type EvalStatus = (typeof EVAL_STATUSES)[number];

/** What {@link gradeAttempt} weighs. */
export interface AttemptFacts {
  readonly assertions: readonly AssertionResult[];
  /** Issues left when the build ended. */
  readonly issues: readonly IssueEvidence[];
  /** The session's stop reason, or why the agent ended with it open. */
  readonly stopReason: string | null;
}

/** The verdict: status, and in one line why it is not a pass. */
export interface AttemptVerdict {
  readonly status: EvalStatus;
  readonly failureReason: string | null;
}

/** Issues named in a failure reason at most; the row holds them all. */
const REASON_ISSUES = 3;
/** Failed assertions named in a failure reason at most. */
const REASON_ASSERTIONS = 4;

const where = (i: IssueEvidence) => `${i.artifact.type} ${i.artifact.name}${i.member ? `.${i.member}` : ''}${i.path ? ` ${i.path}` : ''}`;

/**
 * The verdict on a graded attempt (pure). It passes when no assertion failed or could not run and
 * no error is left (an `ungraded` assertion — a rubric without a judge — does not count either
 * way); a session stopped by its budget is `limit` (the agent ran out, it was not judged wrong);
 * anything else is `fail`, saying whether it published, which errors remain, which assertions
 * failed and how many could not run because of them — never counting those as failures.
 */
export function gradeAttempt(facts: AttemptFacts): AttemptVerdict {
  const failed = facts.assertions.filter((a) => outcomeOf(a) === 'fail');
  const skipped = facts.assertions.filter((a) => outcomeOf(a) === 'skipped');
  const errors = facts.issues.filter((i) => i.severity === 'error');
  if (failed.length === 0 && skipped.length === 0 && errors.length === 0) return { status: 'pass', failureReason: null };
  const parts: string[] = [];
  if (failed.some((a) => a.kind === 'published')) parts.push('not published');
  if (errors.length > 0) {
    const named = errors.slice(0, REASON_ISSUES).map((i) => `${i.code} on ${where(i)}`);
    const more = errors.length > REASON_ISSUES ? `, and ${errors.length - REASON_ISSUES} more` : '';
    parts.push(`${errors.length} error${errors.length === 1 ? '' : 's'} left: ${named.join('; ')}${more}`);
  }
  if (failed.length > 0) {
    const named = failed.slice(0, REASON_ASSERTIONS).map((a) => (a.role ? `${a.kind} ${a.role}` : a.kind));
    const more = failed.length > REASON_ASSERTIONS ? `, and ${failed.length - REASON_ASSERTIONS} more` : '';
    parts.push(`${failed.length} assertion${failed.length === 1 ? '' : 's'} failed: ${named.join(', ')}${more}`);
  }
  if (skipped.length > 0) parts.push(`${skipped.length} could not run`);
  if (facts.stopReason) parts.push(`stopped: ${facts.stopReason}`);
  return { status: facts.stopReason === 'budget' ? 'limit' : 'fail', failureReason: parts.join('; ') };
}
