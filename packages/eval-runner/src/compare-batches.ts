import type { BatchSummary, EntrySummary } from './summarize-batch.ts';

/** How one entry moved between the baseline and this batch (pass@1 over graded attempts). */
export interface EntryChange {
  readonly case: string;
  readonly variant: string;
  readonly before: number;
  readonly after: number;
  /** The case's content changed between the two batches: the comparison is of different cases. */
  readonly versionChanged: boolean;
}

/** This batch against a baseline batch: the entries that got worse, better, or are new. */
export interface Comparison {
  readonly batch: number;
  readonly passRate: number | null;
  readonly regressed: EntryChange[];
  readonly improved: EntryChange[];
  /** Entries this batch ran that the baseline did not (or did not grade). */
  readonly added: Array<{ readonly case: string; readonly variant: string }>;
}

const id = (e: Pick<EntrySummary, 'case' | 'variant'>) => `${e.case}\u0000${e.variant}`;

/**
 * Compares a batch with its baseline (pure): an entry regressed when its pass@1 went down, improved
 * when it went up; entries without graded attempts on either side are not compared. Sorted by case
 * and variant.
 */
export function compareBatches(current: BatchSummary, baseline: { readonly batch: number; readonly summary: BatchSummary }): Comparison {
  const before = new Map(baseline.summary.entries.filter((e) => e.passAt1 !== null).map((e) => [id(e), e]));
  const regressed: EntryChange[] = [];
  const improved: EntryChange[] = [];
  const added: Comparison['added'] = [];
  for (const e of [...current.entries].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0))) {
    if (e.passAt1 === null) continue;
    const b = before.get(id(e));
    if (!b || b.passAt1 === null) {
      added.push({ case: e.case, variant: e.variant });
      continue;
    }
    const change = { case: e.case, variant: e.variant, before: b.passAt1, after: e.passAt1, versionChanged: b.version !== e.version };
    if (e.passAt1 < b.passAt1) regressed.push(change);
    else if (e.passAt1 > b.passAt1) improved.push(change);
  }
  return { batch: baseline.batch, passRate: baseline.summary.passRate, regressed, improved, added };
}
