import { type BuildIssue, sortIssues } from '@bvl/build-issue';
import { dropTenant, type PlatformContext } from '@bvl/platform';
import { getSession, listRounds, type SessionView, verifyBuild } from '@bvl/verify-build';
import { type AttemptSession, attemptCard, attemptSession } from './attempt-session.ts';
import type { Assertion, DefectSet } from './case-file.ts';
import { collectEvidence } from './collect-evidence.ts';
import { type AgentReview, type EvalAgent, type EvalCase, type EvalUsage, NO_USAGE, RateLimitedError } from './eval-agent.ts';
import { subjectId } from './eval-subject.ts';
import type { Evidence, IssueEvidence, ReviewEvidence, RubricVerdict } from './evidence.ts';
import { type AssertionResult, gradeAssertions } from './grade.ts';
import { gradeAttempt } from './grade-attempt.ts';
import type { RubricJudge } from './rubric-judge.ts';
import type { AttemptRecord, RoundFingerprints } from './run-eval-store.ts';

/** The package every attempt builds in its tenant. */
export const ATTEMPT_PACKAGE = 'app';

/** An attempt's default time limit: it is then `limit`, and the next one starts. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10 * 60_000;

/** What one attempt needs. */
export interface RunAttemptInput {
  readonly platform: PlatformContext;
  readonly agent: EvalAgent;
  readonly case: EvalCase;
  readonly epoch: number;
  /** The attempt's ephemeral tenant (dropped before and after). */
  readonly tenant: string;
  /** Who runs it (host:pid), stored with the row. */
  readonly worker: string;
  readonly timeoutMs?: number | undefined;
  /** The run being stopped: the attempt is abandoned and not recorded (a resume runs it again). */
  readonly signal?: AbortSignal | undefined;
  /** The judge of the case's rubric assertions; without one they are `ungraded`. */
  readonly judge?: RubricJudge | undefined;
}

/** What an attempt that ended before grading records: no rounds, assertions, issues or evidence, nothing spent. */
export const NOT_GRADED = {
  repairRounds: null,
  rounds: [],
  assertions: [],
  issues: [],
  evidence: null,
  session: null,
  card: null,
  review: null,
  judgeUsage: NO_USAGE,
  ...NO_USAGE,
} as const satisfies Partial<AttemptRecord>;

/** The run was stopped while the attempt was in flight: nothing is recorded for it. */
export class AttemptAbandoned extends Error {
  override readonly name = 'AttemptAbandoned';
}

const asEvidence = (i: BuildIssue): IssueEvidence => ({
  layer: i.layer,
  code: i.code,
  severity: i.severity,
  artifact: { type: i.artifact.type, name: i.artifact.name },
  ...(i.ref?.member !== undefined ? { member: i.ref.member } : {}),
  ...(i.path !== undefined ? { path: i.path } : {}),
});

/** The outcome a case expects of an agent: what its defect set says for the agent, else `pass` (a clean variant expects a pass). */
export const expectedOutcome = (defect: Pick<DefectSet, 'expected'> | undefined, agent: string): 'pass' | 'fail' => defect?.expected?.[agent] ?? 'pass';

const reviewEvidence = (r: AgentReview): ReviewEvidence => ({
  verdict: r.verdict,
  findings: r.issues.map((i) => ({ artifact: `${i.artifact.type} ${i.artifact.name}`, message: i.message })),
});

/** The assertions an attempt is graded on: the case's, plus, for a defect variant, that the set's issues are gone. */
export function attemptAssertions(c: EvalCase): Assertion[] {
  return c.defect ? [...c.assertions, { kind: 'issues_absent', issues: c.defect.expect }] : [...c.assertions];
}

const describe = (e: unknown): string => {
  const err = e as Error;
  const cause = err?.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}${cause}`.slice(0, 2000);
};

/**
 * One attempt, start to end, in its own tenant: drops what a killed attempt of the same name left,
 * lets the agent build, then grades what the platform holds — never what the agent says: the issues
 * left (verify over the drafts, the latest L3), the evidence (published app, rows, probes, DOM
 * sweep), the case's assertions — and drops the tenant, whatever happened. An agent or grading
 * failure is `error` (infrastructure), the time limit `limit`; a {@link RateLimitedError} is
 * rethrown for the runner to back off, and a stopped run throws {@link AttemptAbandoned}.
 */
export async function runAttempt(input: RunAttemptInput): Promise<AttemptRecord> {
  const { platform, agent, tenant } = input;
  const c = input.case;
  const scope = { tenant, package: ATTEMPT_PACKAGE };
  const started = new Date();
  const t0 = performance.now();
  const timeoutMs = input.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  const base = {
    case: c.name,
    version: c.version,
    variant: c.variant,
    prompt: c.promptVariant,
    subject: subjectId({ agent: agent.name, model: agent.model }),
    epoch: input.epoch,
    expected: expectedOutcome(c.defect, agent.name),
    worker: input.worker,
    startedAt: started.toISOString(),
  };
  const end = (r: Omit<AttemptRecord, keyof typeof base | 'latencyMs' | 'finishedAt'>): AttemptRecord => ({
    ...base,
    ...r,
    latencyMs: performance.now() - t0,
    finishedAt: new Date().toISOString(),
  });
  const empty = { ...NOT_GRADED, stopReason: null };

  await dropTenant(platform, tenant);
  try {
    let usage: EvalUsage = NO_USAGE;
    let sessionId: string | null = null;
    let stopped: string | undefined;
    let review: AgentReview | null = null;
    let agentError: string | undefined;
    try {
      const r = await agent.run({ platform, scope, case: c, signal });
      usage = r.usage;
      sessionId = r.sessionId;
      stopped = r.stopped;
      review = r.review ?? null;
      agentError = r.error;
    } catch (e) {
      if (e instanceof RateLimitedError) throw e;
      if (input.signal?.aborted) throw new AttemptAbandoned('the run was stopped', { cause: e });
      if (timeout.aborted) return end({ ...empty, status: 'limit', failureReason: `time limit of ${timeoutMs} ms reached`, stopReason: 'time_limit' });
      return end({ ...empty, status: 'error', failureReason: `agent: ${describe(e)}` });
    }

    let session: SessionView | null = null;
    let kept: AttemptSession | null = null;
    let rounds: RoundFingerprints[] = [];
    try {
      // The session and its rounds are kept whatever follows: they outlive the tenant in the row.
      if (sessionId !== null) {
        session = await getSession(platform, { tenant, id: sessionId });
        const views = await listRounds(platform, { tenant, id: sessionId });
        kept = attemptSession(session, views);
        rounds = views.map((r) => ({ round: r.round, kind: r.kind, errors: r.errors, warnings: r.warnings, fixes: r.fixes.length, stopReason: r.stopReason }));
      }
      if (agentError !== undefined) return end({ ...empty, ...usage, session: kept, rounds, review, status: 'error', failureReason: `agent: ${agentError}` });
      // What is left, by the one verification every surface runs (no fixer, no session: a read).
      const left = await verifyBuild(platform, scope);
      const repairRounds = session?.repairRounds ?? null;
      const collected = await collectEvidence(platform, { ...scope, ...(repairRounds !== null ? { rounds: repairRounds } : {}) });
      const issues = sortIssues([...left.issues, ...(review?.issues ?? [])]);
      const gathered: Evidence = { ...collected.evidence, issues: issues.map(asEvidence), ...(review ? { review: reviewEvidence(review) } : {}) };
      const judged = await judgeRubrics(input.judge, c, gathered, signal);
      const evidence: Evidence = judged ? { ...gathered, rubric: judged.verdicts } : gathered;
      const assertions: AssertionResult[] = gradeAssertions(attemptAssertions(c), evidence);
      const stopReason = session?.stopReason ?? stopped ?? null;
      const verdict = gradeAttempt({ assertions, issues: evidence.issues!, stopReason });
      return end({
        ...verdict,
        repairRounds,
        stopReason,
        rounds,
        assertions,
        issues,
        evidence,
        session: kept,
        card: attemptCard(left.card),
        review,
        judgeUsage: judged?.usage ?? NO_USAGE,
        ...usage,
      });
    } catch (e) {
      if (input.signal?.aborted) throw new AttemptAbandoned('the run was stopped', { cause: e });
      return end({ ...empty, ...usage, session: kept, rounds, review, status: 'error', failureReason: `grading: ${describe(e)}` });
    }
  } finally {
    // The tenant goes whatever happened; if even this fails, the next run's sweep takes it.
    await dropTenant(platform, tenant).catch(() => {});
  }
}

/**
 * The judge's verdict on each rubric assertion of the case, with what it spent; undefined when
 * there is no judge, no rubric, or nothing was published to judge. A judge that fails throws (the
 * attempt is then `error`: the infrastructure failed, the agent was not judged).
 */
async function judgeRubrics(
  judge: RubricJudge | undefined,
  c: EvalCase,
  evidence: Evidence,
  signal: AbortSignal,
): Promise<{ verdicts: Record<string, RubricVerdict>; usage: EvalUsage } | undefined> {
  const rubrics = c.assertions.filter((a) => a.kind === 'rubric');
  if (!judge || rubrics.length === 0 || !evidence.published) return undefined;
  const widgetRows: Record<string, number> = {};
  for (const d of evidence.dom?.artifacts ?? []) for (const w of d.widgets ?? []) widgetRows[`${d.name}.${w.id}`] = w.rows;
  const verdicts: Record<string, RubricVerdict> = {};
  const usage = { tokensIn: 0, tokensOut: 0, costUsd: 0 };
  for (const a of rubrics) {
    const v = await judge.judge({ prompt: c.prompt, criterion: a.criterion, app: evidence.app, rowCounts: evidence.rowCounts, widgetRows }, signal);
    verdicts[a.id] = v;
    usage.tokensIn += v.tokensIn;
    usage.tokensOut += v.tokensOut;
    usage.costUsd += v.costUsd;
  }
  return { verdicts, usage };
}
