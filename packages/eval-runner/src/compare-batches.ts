import { DEFAULT_PROMPT } from './eval-agent.ts';
import { type EvalSubject, subjectId } from './eval-subject.ts';
import type { BatchSummary, EntrySummary } from './summarize-batch.ts';
import { passRate } from './summarize-batch.ts';

/** How one entry moved between the baseline and this batch (pass@1 over graded attempts). */
export interface EntryChange {
  readonly case: string;
  readonly variant: string;
  readonly prompt: string;
  readonly subject: string;
  readonly before: number;
  readonly after: number;
  /** The case's content changed between the two batches: the comparison is of different cases. */
  readonly versionChanged: boolean;
}

/** An entry this batch graded that the baseline did not. */
export interface EntryRef {
  readonly case: string;
  readonly variant: string;
  readonly prompt: string;
  readonly subject: string;
}

/**
 * This batch against a baseline batch, like with like: only entries (case × variant × prompt ×
 * subject) both graded are compared, and `unlike` says what differs between the two batches and
 * so was left out. The pass rates are over the compared entries on both sides.
 */
export interface Comparison {
  readonly batch: number;
  /** The baseline's pass rate over the compared entries; null when none was compared. */
  readonly passRate: number | null;
  /** This batch's pass rate over the same entries. */
  readonly currentPassRate: number | null;
  /** Entries compared like with like. */
  readonly compared: number;
  readonly regressed: EntryChange[];
  readonly improved: EntryChange[];
  /** Entries this batch ran that the baseline did not (or did not grade). */
  readonly added: EntryRef[];
  /** What differs between the two batches (suite, subjects, defect sets): each a sentence; empty when they are alike. */
  readonly unlike: string[];
}

/** What {@link unlikeBatches} reads of a batch. */
export interface BatchShape {
  readonly id: number;
  readonly suite: string;
  readonly subjects: readonly EvalSubject[];
  readonly defects?: string | null | undefined;
}

const id = (e: Pick<EntrySummary, 'case' | 'variant' | 'prompt' | 'subject'>) =>
  `${e.case}\u0000${e.variant}\u0000${e.prompt ?? DEFAULT_PROMPT}\u0000${e.subject}`;

/**
 * What differs between a batch and its baseline, as sentences (pure): the suite, the subjects
 * (agent and model) each ran that the other did not, the defect sets. Empty when they are alike.
 */
export function unlikeBatches(current: BatchShape, base: BatchShape): string[] {
  const out: string[] = [];
  if (current.suite !== base.suite) out.push(`batch ${base.id} is of suite "${base.suite}", this one of "${current.suite}"`);
  const here = current.subjects.map(subjectId);
  const there = base.subjects.map(subjectId);
  const onlyHere = here.filter((s) => !there.includes(s));
  const onlyThere = there.filter((s) => !here.includes(s));
  if (onlyHere.length > 0) out.push(`batch ${base.id} did not run ${onlyHere.join(', ')}: not compared`);
  if (onlyThere.length > 0) out.push(`batch ${base.id} also ran ${onlyThere.join(', ')}, which this batch did not`);
  if ((current.defects ?? null) !== (base.defects ?? null))
    out.push(
      base.defects
        ? `batch ${base.id} ran defect sets "${base.defects}", this one "${current.defects ?? 'unknown'}": only the entries both ran are compared`
        : `batch ${base.id} does not record which defect sets it ran: only the entries both ran are compared`,
    );
  return out;
}

/**
 * Compares a batch with its baseline (pure), like with like: an entry (case × variant × prompt ×
 * subject) regressed when its pass@1 went down, improved when it went up; entries without graded
 * attempts on either side are not compared. Sorted by case, variant, prompt and subject.
 */
export function compareBatches(
  current: BatchSummary,
  baseline: { readonly batch: number; readonly summary: BatchSummary; readonly unlike?: readonly string[] },
): Comparison {
  const before = new Map(baseline.summary.entries.filter((e) => e.passAt1 !== null).map((e) => [id(e), e]));
  const regressed: EntryChange[] = [];
  const improved: EntryChange[] = [];
  const added: EntryRef[] = [];
  const both: Array<[EntrySummary, EntrySummary]> = [];
  for (const e of [...current.entries].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0))) {
    if (e.passAt1 === null) continue;
    const b = before.get(id(e));
    const ref = { case: e.case, variant: e.variant, prompt: e.prompt, subject: e.subject };
    if (!b || b.passAt1 === null) {
      added.push(ref);
      continue;
    }
    both.push([b, e]);
    const change = { ...ref, before: b.passAt1, after: e.passAt1, versionChanged: b.version !== e.version };
    if (e.passAt1 < b.passAt1) regressed.push(change);
    else if (e.passAt1 > b.passAt1) improved.push(change);
  }
  const rate = (side: 0 | 1) => {
    const sum = (s: 'pass' | 'fail' | 'limit') => both.reduce((n, pair) => n + pair[side][s], 0);
    return passRate({ pass: sum('pass'), fail: sum('fail'), limit: sum('limit'), error: 0 });
  };
  return {
    batch: baseline.batch,
    passRate: rate(0),
    currentPassRate: rate(1),
    compared: both.length,
    regressed,
    improved,
    added,
    unlike: [...(baseline.unlike ?? [])],
  };
}
