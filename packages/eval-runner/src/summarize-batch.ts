import { DEFAULT_PROMPT, type EvalUsage, NO_USAGE } from './eval-agent.ts';
import { type EvalSubject, subjectId } from './eval-subject.ts';
import type { EvalStatus } from './grade-attempt.ts';
import { passAtK, passHatK } from './pass-at-k.ts';
import { type PlanEntry, planAttempts, plannedAttempts } from './plan-attempts.ts';

/** What a summary reads of one attempt. */
export interface AttemptOutcome {
  readonly case: string;
  readonly variant: string;
  /** The prompt variant (absent: the case's own prompt). */
  readonly prompt?: string;
  /** The subject that ran it (absent: the batch's only one). */
  readonly subject?: string;
  readonly epoch: number;
  readonly status: EvalStatus;
  /** The outcome the case expects of this agent (absent: pass). */
  readonly expected?: 'pass' | 'fail';
  readonly failureReason: string | null;
  readonly latencyMs: number;
  readonly repairRounds?: number | null;
  readonly tokensIn?: number;
  readonly tokensOut?: number;
  readonly costUsd?: number;
  /** What the judge of rubric assertions spent on it. */
  readonly judgeUsage?: EvalUsage;
}

/** Tokens and money, totalled: what the agents spent, and what the judge spent apart. */
export interface Spend {
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
  readonly judgeTokensIn: number;
  readonly judgeTokensOut: number;
  readonly judgeCostUsd: number;
}

/** Attempt counts by status, and failures split by whether the case expected them of the agent. */
export interface Counts {
  readonly attempts: number;
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
  readonly limit: number;
  /** Attempts that did not pass (fail or limit) where the case expects the agent to fail: by design, not a finding. */
  readonly expectedFail: number;
  /** Attempts that did not pass (fail or limit) where the case expects a pass. */
  readonly unexpectedFail: number;
  /** Attempts that passed where the case expects the agent to fail (worth a look: the expectation may be stale). */
  readonly unexpectedPass: number;
}

/** One entry (case × variant × prompt) run by one subject, across its epochs. */
export interface EntrySummary extends Counts, Spend {
  readonly case: string;
  readonly variant: string;
  readonly prompt: string;
  readonly subject: string;
  readonly version: string;
  readonly planned: number;
  /** Over the graded attempts (pass, fail, limit; an `error` is the infrastructure's, not the agent's); null when none was graded. */
  readonly passAt1: number | null;
  readonly passAtK: number | null;
  readonly passHatK: number | null;
  /** The k of passAtK / passHatK: the epochs, or fewer when fewer attempts were graded. */
  readonly k: number;
  /** What the case expects of this subject's agent. */
  readonly expected: 'pass' | 'fail';
  readonly meanRounds: number | null;
  readonly meanLatencyMs: number | null;
  /** The failure reasons of the attempts that did not pass, by epoch. */
  readonly failures: ReadonlyArray<{ readonly epoch: number; readonly status: EvalStatus; readonly reason: string | null }>;
}

/** One subject of a batch (a column of the matrix): its figures side by side with the others'. */
export interface SubjectSummary extends Counts, Spend {
  readonly subject: string;
  readonly agent: string;
  readonly model: string | null;
  readonly planned: number;
  readonly passRate: number | null;
  readonly passAt1: number | null;
  readonly passAtK: number | null;
  readonly passHatK: number | null;
  readonly meanRounds: number | null;
  readonly meanLatencyMs: number | null;
}

/** One case's spend over all its variants, prompts and subjects. */
export interface CaseSpend extends Spend {
  readonly case: string;
  readonly attempts: number;
}

/** A batch in numbers: its entries, its subjects side by side, spend per case, and the suite's pass rates. */
export interface BatchSummary extends Counts, Spend {
  readonly entries: EntrySummary[];
  readonly subjects: SubjectSummary[];
  readonly cases: CaseSpend[];
  readonly planned: number;
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
const entryKey = (c: string, v: string, p: string, s: string) => `${c}\u0000${v}\u0000${p}\u0000${s}`;

function counts(runs: readonly AttemptOutcome[]): Counts {
  const n = (s: EvalStatus) => runs.filter((r) => r.status === s).length;
  const missed = runs.filter((r) => r.status === 'fail' || r.status === 'limit');
  return {
    attempts: runs.length,
    pass: n('pass'),
    fail: n('fail'),
    error: n('error'),
    limit: n('limit'),
    expectedFail: missed.filter((r) => r.expected === 'fail').length,
    unexpectedFail: missed.filter((r) => r.expected !== 'fail').length,
    unexpectedPass: runs.filter((r) => r.status === 'pass' && r.expected === 'fail').length,
  };
}

/** Tokens and cost totalled over attempts (pure). */
export function spendOf(runs: readonly AttemptOutcome[]): Spend {
  const sum = (f: (r: AttemptOutcome) => number) => runs.reduce((n, r) => n + f(r), 0);
  return {
    tokensIn: sum((r) => r.tokensIn ?? 0),
    tokensOut: sum((r) => r.tokensOut ?? 0),
    costUsd: sum((r) => r.costUsd ?? 0),
    judgeTokensIn: sum((r) => (r.judgeUsage ?? NO_USAGE).tokensIn),
    judgeTokensOut: sum((r) => (r.judgeUsage ?? NO_USAGE).tokensOut),
    judgeCostUsd: sum((r) => (r.judgeUsage ?? NO_USAGE).costUsd),
  };
}

const meanRounds = (runs: readonly AttemptOutcome[]) => mean(runs.map((r) => r.repairRounds).filter((n): n is number => n !== null && n !== undefined));

/**
 * Summarizes a batch (pure): per entry and subject the counts, spend and pass@1, pass@k and pass^k
 * over its graded attempts (k = the epochs); per subject the same side by side (a matrix's
 * columns); spend per case; for the suite the counts, the pass rate and the means of the per-entry
 * estimates. Failures are split into those the case expects of the agent (a defect set it cannot
 * repair by design) and the rest. Entries keep the plan's order, subjects the batch's.
 */
export function summarizeBatch(
  batch: { readonly plan: readonly PlanEntry[]; readonly subjects: readonly EvalSubject[]; readonly epochs: number },
  outcomes: readonly AttemptOutcome[],
): BatchSummary {
  const { plan, subjects, epochs } = batch;
  const only = subjects.length === 1 ? subjectId(subjects[0]!) : '';
  const subjectOfRun = (o: AttemptOutcome) => o.subject ?? only;
  const by = new Map<string, AttemptOutcome[]>();
  for (const o of outcomes) {
    const k = entryKey(o.case, o.variant, o.prompt ?? DEFAULT_PROMPT, subjectOfRun(o));
    by.set(k, [...(by.get(k) ?? []), o]);
  }
  const versions = new Map(plan.map((e) => [`${e.case}\u0000${e.variant}\u0000${e.prompt}`, e.version]));
  const entries = planAttempts(plan, subjects, 1).map((a): EntrySummary => {
    const runs = (by.get(entryKey(a.case, a.variant, a.prompt, a.subject)) ?? []).sort((x, y) => x.epoch - y.epoch);
    const c = counts(runs);
    const graded = runs.length - c.error;
    const k = Math.max(1, Math.min(epochs, graded));
    return {
      case: a.case,
      variant: a.variant,
      prompt: a.prompt,
      subject: a.subject,
      version: versions.get(`${a.case}\u0000${a.variant}\u0000${a.prompt}`) ?? '',
      planned: epochs,
      ...c,
      ...spendOf(runs),
      passAt1: graded > 0 ? passAtK(graded, c.pass, 1) : null,
      passAtK: graded > 0 ? passAtK(graded, c.pass, k) : null,
      passHatK: graded > 0 ? passHatK(graded, c.pass, k) : null,
      k,
      expected: runs[0]?.expected ?? 'pass',
      meanRounds: meanRounds(runs),
      meanLatencyMs: mean(runs.map((r) => r.latencyMs)),
      failures: runs.filter((r) => r.status !== 'pass').map((r) => ({ epoch: r.epoch, status: r.status, reason: r.failureReason })),
    };
  });
  const estimates = (es: readonly EntrySummary[], pick: (e: EntrySummary) => number | null) => mean(es.map(pick).filter((x): x is number => x !== null));
  const subjectSummaries = subjects.map((s): SubjectSummary => {
    const id = subjectId(s);
    const runs = outcomes.filter((o) => subjectOfRun(o) === id);
    const mine = entries.filter((e) => e.subject === id);
    const c = counts(runs);
    return {
      subject: id,
      agent: s.agent,
      model: s.model ?? null,
      planned: mine.length * epochs,
      ...c,
      ...spendOf(runs),
      passRate: passRate(c),
      passAt1: estimates(mine, (e) => e.passAt1),
      passAtK: estimates(mine, (e) => e.passAtK),
      passHatK: estimates(mine, (e) => e.passHatK),
      meanRounds: meanRounds(runs),
      meanLatencyMs: mean(runs.map((r) => r.latencyMs)),
    };
  });
  const caseNames = [...new Set(plan.map((e) => e.case))];
  const c = counts(outcomes);
  return {
    entries,
    subjects: subjectSummaries,
    cases: caseNames.map((name) => {
      const runs = outcomes.filter((o) => o.case === name);
      return { case: name, attempts: runs.length, ...spendOf(runs) };
    }),
    planned: plannedAttempts({ plan, subjects, epochs }),
    ...c,
    ...spendOf(outcomes),
    passRate: passRate(c),
    passAt1: estimates(entries, (e) => e.passAt1),
    passAtK: estimates(entries, (e) => e.passAtK),
    passHatK: estimates(entries, (e) => e.passHatK),
    epochs,
    meanLatencyMs: mean(outcomes.map((o) => o.latencyMs)),
  };
}
