import type { EvalStatus } from './grade-attempt.ts';
import { passAtK, passHatK } from './pass-at-k.ts';
import { type PlanEntry, plannedAttempts } from './plan-attempts.ts';

/** What a summary reads of one attempt. */
export interface AttemptOutcome {
  readonly case: string;
  readonly variant: string;
  readonly epoch: number;
  readonly status: EvalStatus;
  readonly failureReason: string | null;
  readonly latencyMs: number;
}

/** One entry (case × variant) of a batch across its epochs. */
export interface EntrySummary {
  readonly case: string;
  readonly variant: string;
  readonly version: string;
  /** Attempts recorded of those planned. */
  readonly attempts: number;
  readonly planned: number;
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
  readonly limit: number;
  /** Over the graded attempts (pass, fail, limit; an `error` is the infrastructure's, not the agent's); null when none was graded. */
  readonly passAt1: number | null;
  readonly passAtK: number | null;
  readonly passHatK: number | null;
  /** The k of passAtK / passHatK: the epochs, or fewer when fewer attempts were graded. */
  readonly k: number;
  /** The failure reasons of the attempts that did not pass, by epoch. */
  readonly failures: ReadonlyArray<{ readonly epoch: number; readonly status: EvalStatus; readonly reason: string | null }>;
}

/** A batch in numbers: its entries, attempt counts, and the suite's pass rates (means over the graded entries). */
export interface BatchSummary {
  readonly entries: EntrySummary[];
  readonly planned: number;
  readonly attempts: number;
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
  readonly limit: number;
  /** Passing attempts over graded attempts; null when none was graded. */
  readonly passRate: number | null;
  readonly passAt1: number | null;
  readonly passAtK: number | null;
  readonly passHatK: number | null;
  readonly epochs: number;
  /** Mean latency of the recorded attempts. */
  readonly meanLatencyMs: number | null;
}

/** The pass rate: passing attempts over graded ones (pass, fail, limit; an `error` is the infrastructure's); null when none was graded. */
export function passRate(c: Readonly<Record<EvalStatus, number>>): number | null {
  const graded = c.pass + c.fail + c.limit;
  return graded > 0 ? c.pass / graded : null;
}

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
const key = (c: string, v: string) => `${c}\u0000${v}`;

/**
 * Summarizes a batch (pure): per entry the counts and pass@1, pass@k and pass^k over its graded
 * attempts (k = the epochs); for the suite the attempt counts, the pass rate and the means of the
 * per-entry estimates. Entries keep the plan's order.
 */
export function summarizeBatch(plan: readonly PlanEntry[], epochs: number, outcomes: readonly AttemptOutcome[]): BatchSummary {
  const by = new Map<string, AttemptOutcome[]>();
  for (const o of outcomes) {
    const k = key(o.case, o.variant);
    by.set(k, [...(by.get(k) ?? []), o]);
  }
  const entries = plan.map((e): EntrySummary => {
    const runs = (by.get(key(e.case, e.variant)) ?? []).sort((a, b) => a.epoch - b.epoch);
    const count = (s: EvalStatus) => runs.filter((r) => r.status === s).length;
    const pass = count('pass');
    const graded = runs.length - count('error');
    const k = Math.max(1, Math.min(epochs, graded));
    return {
      case: e.case,
      variant: e.variant,
      version: e.version,
      attempts: runs.length,
      planned: epochs,
      pass,
      fail: count('fail'),
      error: count('error'),
      limit: count('limit'),
      passAt1: graded > 0 ? passAtK(graded, pass, 1) : null,
      passAtK: graded > 0 ? passAtK(graded, pass, k) : null,
      passHatK: graded > 0 ? passHatK(graded, pass, k) : null,
      k,
      failures: runs.filter((r) => r.status !== 'pass').map((r) => ({ epoch: r.epoch, status: r.status, reason: r.failureReason })),
    };
  });
  const all = (s: EvalStatus) => outcomes.filter((o) => o.status === s).length;
  const counts = { pass: all('pass'), fail: all('fail'), error: all('error'), limit: all('limit') };
  const estimates = (pick: (e: EntrySummary) => number | null) => mean(entries.map(pick).filter((x): x is number => x !== null));
  return {
    entries,
    planned: plannedAttempts({ plan, epochs }),
    attempts: outcomes.length,
    ...counts,
    passRate: passRate(counts),
    passAt1: estimates((e) => e.passAt1),
    passAtK: estimates((e) => e.passAtK),
    passHatK: estimates((e) => e.passHatK),
    epochs,
    meanLatencyMs: mean(outcomes.map((o) => o.latencyMs)),
  };
}
