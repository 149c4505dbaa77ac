import type { BuildIssue } from '@bvl/build-issue';
import { dropTenant, type PlatformContext } from '@bvl/platform';
import { getSession, listRounds, type SessionView, verifyBuild } from '@bvl/verify-build';
import type { Assertion } from './case-file.ts';
import { collectEvidence } from './collect-evidence.ts';
import { type EvalAgent, type EvalCase, type EvalUsage, NO_USAGE, RateLimitedError } from './eval-agent.ts';
import type { Evidence, IssueEvidence } from './evidence.ts';
import { type AssertionResult, gradeAssertions } from './grade.ts';
import { gradeAttempt } from './grade-attempt.ts';
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
}

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
  const base = { case: c.name, version: c.version, variant: c.variant, epoch: input.epoch, worker: input.worker, startedAt: started.toISOString() };
  const end = (r: Omit<AttemptRecord, keyof typeof base | 'latencyMs' | 'finishedAt'>): AttemptRecord => ({
    ...base,
    ...r,
    latencyMs: performance.now() - t0,
    finishedAt: new Date().toISOString(),
  });
  const empty = { repairRounds: null, stopReason: null, rounds: [], assertions: [], issues: [], evidence: null, ...NO_USAGE };

  await dropTenant(platform, tenant);
  try {
    let usage: EvalUsage = NO_USAGE;
    let sessionId: string | null = null;
    let stopped: string | undefined;
    try {
      const r = await agent.run({ platform, scope, case: c, signal });
      usage = r.usage;
      sessionId = r.sessionId;
      stopped = r.stopped;
      if (r.error !== undefined) return end({ ...empty, ...usage, status: 'error', failureReason: `agent: ${r.error}` });
    } catch (e) {
      if (e instanceof RateLimitedError) throw e;
      if (input.signal?.aborted) throw new AttemptAbandoned('the run was stopped', { cause: e });
      if (timeout.aborted) return end({ ...empty, status: 'limit', failureReason: `time limit of ${timeoutMs} ms reached`, stopReason: 'time_limit' });
      return end({ ...empty, status: 'error', failureReason: `agent: ${describe(e)}` });
    }

    try {
      let session: SessionView | null = null;
      let rounds: RoundFingerprints[] = [];
      if (sessionId !== null) {
        session = await getSession(platform, { tenant, id: sessionId });
        rounds = (await listRounds(platform, { tenant, id: sessionId })).map((r) => ({
          round: r.round,
          kind: r.kind,
          errors: r.errors,
          warnings: r.warnings,
          fixes: r.fixes.length,
          stopReason: r.stopReason,
        }));
      }
      // What is left, by the one verification every surface runs (no fixer, no session: a read).
      const left = await verifyBuild(platform, scope);
      const repairRounds = session?.repairRounds ?? null;
      const collected = await collectEvidence(platform, { ...scope, ...(repairRounds !== null ? { rounds: repairRounds } : {}) });
      const evidence: Evidence = { ...collected.evidence, issues: left.issues.map(asEvidence) };
      const assertions: AssertionResult[] = gradeAssertions(attemptAssertions(c), evidence);
      const stopReason = session?.stopReason ?? stopped ?? null;
      const verdict = gradeAttempt({ assertions, issues: evidence.issues!, stopReason });
      return end({ ...verdict, repairRounds, stopReason, rounds, assertions, issues: left.issues, evidence, ...usage });
    } catch (e) {
      if (input.signal?.aborted) throw new AttemptAbandoned('the run was stopped', { cause: e });
      return end({ ...empty, ...usage, status: 'error', failureReason: `grading: ${describe(e)}` });
    }
  } finally {
    // The tenant goes whatever happened; if even this fails, the next run's sweep takes it.
    await dropTenant(platform, tenant).catch(() => {});
  }
}
