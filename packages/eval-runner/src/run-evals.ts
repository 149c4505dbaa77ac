import { hostname } from 'node:os';
import type { PlatformContext } from '@bvl/platform';
import { type EvalAgent, RateLimitedError } from './eval-agent.ts';
import { agentOfSubject, type EvalSubject, subjectId, subjectOf } from './eval-subject.ts';
import type { GoldenCase } from './golden-case.ts';
import type { EvalStatus } from './grade-attempt.ts';
import { type AttemptKey, attemptId, attemptTenant, type DefectFilter, evalCaseOf, planAttempts, planEntries } from './plan-attempts.ts';
import type { RubricJudge } from './rubric-judge.ts';
import { type BackoffOptions, type PoolEvent, runAdaptivePool } from './run-adaptive-pool.ts';
import { AttemptAbandoned, expectedOutcome, NOT_GRADED, runAttempt } from './run-attempt.ts';
import {
  type AttemptRecord,
  countAttempts,
  createBatch,
  type EvalBatch,
  finishBatch,
  finishedAttempts,
  getBatch,
  heartbeatBatch,
  listAttempts,
  loadPlannedCases,
  type StoredAttempt,
  saveAttempt,
  saveCases,
  sweepEvalTenants,
} from './run-eval-store.ts';
import { type BatchSummary, summarizeBatch } from './summarize-batch.ts';

/** A caller's mistake about a batch (unknown id, another agent's batch, nothing to run). */
export class EvalRunError extends Error {
  override readonly name = 'EvalRunError';
}

/** What the runner reports as it goes. */
export type EvalProgress =
  | { readonly kind: 'start'; readonly batch: number; readonly total: number; readonly done: number; readonly swept: number }
  | {
      readonly kind: 'attempt';
      readonly key: AttemptKey;
      readonly status: EvalStatus;
      readonly latencyMs: number;
      readonly done: number;
      readonly total: number;
      readonly counts: Readonly<Record<EvalStatus, number>>;
    }
  | { readonly kind: 'pool'; readonly event: PoolEvent };

/** A local run of a batch. Either `cases` (a new batch) or `resume` (a batch to continue). */
export interface RunEvalsInput {
  readonly platform: PlatformContext;
  /**
   * The subjects under test: one agent, or a matrix (the same agent over several models, several
   * agents). Each runs every entry; a resume needs an agent for each subject the batch planned.
   */
  readonly agents: readonly EvalAgent[];
  readonly cases?: readonly GoldenCase[] | undefined;
  /** Batches compare within a suite (default `golden`). */
  readonly suite?: string | undefined;
  readonly epochs?: number | undefined;
  readonly defects?: DefectFilter | undefined;
  /** A batch to continue: its finished attempts are not run again (an `error` is). */
  readonly resume?: number | undefined;
  readonly gitCommit?: string | null | undefined;
  /** Attempts at once (default 1). */
  readonly concurrency?: number | undefined;
  readonly timeoutMs?: number | undefined;
  readonly backoff?: BackoffOptions | undefined;
  readonly worker?: string | undefined;
  /** The judge model of rubric assertions; without one they are `ungraded`. */
  readonly judge?: RubricJudge | undefined;
  /** Stop: attempts in flight are abandoned (not recorded), the batch stays open for `resume`. */
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((event: EvalProgress) => void) | undefined;
}

/** A batch after a run: the stored batch, its summary and every attempt recorded. */
export interface EvalRunResult {
  readonly batch: EvalBatch;
  readonly summary: BatchSummary;
  readonly attempts: StoredAttempt[];
  /** Attempts this run recorded (a resume skips the finished ones). */
  readonly ran: number;
  /** Whether every planned attempt is recorded (false when the run was stopped). */
  readonly complete: boolean;
}

/** How often a running batch says it is alive (orphan sweeps leave live batches alone). */
export const HEARTBEAT_MS = 15_000;

/** This process, as a worker name. */
export const workerName = (): string => `${hostname()}:${process.pid}`;

/** A record for an attempt that never got to run to the end (rate limits outlasted the back-off, or the infrastructure failed). */
export function unfinishedRecord(c: GoldenCase, key: AttemptKey, status: 'error' | 'limit', reason: string, worker: string): AttemptRecord {
  const at = new Date().toISOString();
  return {
    ...key,
    version: c.version,
    expected: expectedOutcome(c.defects[key.variant], agentOfSubject(key.subject)),
    status,
    failureReason: reason,
    ...NOT_GRADED,
    stopReason: status === 'limit' ? 'rate_limited' : null,
    latencyMs: 0,
    worker,
    startedAt: at,
    finishedAt: at,
  };
}

/**
 * Runs a batch on this machine: opens it (or continues `resume`), sweeps the tenants killed runs
 * left, runs each attempt not yet finished in its own tenant — at most `concurrency` at once,
 * backing off on rate limits — and stores each row as the attempt finishes, so a killed run loses
 * only the attempts in flight. The batch is finished when every planned attempt is recorded.
 */
export async function runEvals(input: RunEvalsInput): Promise<EvalRunResult> {
  const { platform } = input;
  const worker = input.worker ?? workerName();
  const agents = new Map(input.agents.map((a) => [subjectId(subjectOf(a)), a]));
  if (agents.size === 0) throw new EvalRunError('no agent to run the cases through');
  let batch: EvalBatch;
  let cases: Map<string, GoldenCase>;
  let swept: string[];
  if (input.resume !== undefined) {
    const found = await getBatch(platform, input.resume);
    if (!found) throw new EvalRunError(`there is no eval batch ${input.resume}`);
    const missing = found.subjects.filter((s) => !agents.has(subjectId(s)));
    if (missing.length > 0)
      throw new EvalRunError(
        `batch ${found.id} was run by ${found.subjects.map(describeSubject).join(', ')}; resume it with ${missing.map(resumeFlags).join(' and ')} (this run has ${[...agents.keys()].join(', ')})`,
      );
    batch = found;
    cases = await loadPlannedCases(platform, batch.plan);
    // This run owns the batch now: whatever its attempts left is an orphan.
    swept = await sweepEvalTenants(platform, { batch: batch.id });
  } else {
    if (!input.cases || input.cases.length === 0) throw new EvalRunError('no golden case to run');
    const plan = planEntries(input.cases, input.defects ?? 'all');
    await saveCases(platform, input.cases);
    batch = await createBatch(platform, {
      suite: input.suite ?? 'golden',
      subjects: [...agents.values()].map(subjectOf),
      gitCommit: input.gitCommit,
      defects: input.defects ?? 'all',
      judge: input.judge?.model ?? null,
      epochs: input.epochs ?? 1,
      plan,
      status: 'running',
    });
    cases = new Map(input.cases.map((c) => [c.name, c]));
    swept = await sweepEvalTenants(platform);
  }

  const all = planAttempts(batch.plan, batch.subjects, batch.epochs);
  const finished = await finishedAttempts(platform, batch.id);
  const todo = all.filter((k) => !finished.has(attemptId(k)));
  const counts: Record<EvalStatus, number> = { pass: 0, fail: 0, error: 0, limit: 0 };
  let done = all.length - todo.length;
  let ran = 0;
  input.onProgress?.({ kind: 'start', batch: batch.id, total: all.length, done, swept: swept.length });

  const record = async (key: AttemptKey, r: AttemptRecord) => {
    await saveAttempt(platform, batch, r);
    ran++;
    done++;
    counts[r.status]++;
    input.onProgress?.({ kind: 'attempt', key, status: r.status, latencyMs: r.latencyMs, done, total: all.length, counts: { ...counts } });
  };
  const caseOf = (key: AttemptKey) => cases.get(key.case)!;
  const beat = setInterval(() => void heartbeatBatch(platform, batch.id).catch(() => {}), HEARTBEAT_MS);
  beat.unref();
  try {
    await runAdaptivePool(
      todo,
      {
        concurrency: input.concurrency ?? 1,
        backoff: input.backoff,
        signal: input.signal,
        onEvent: (event) => input.onProgress?.({ kind: 'pool', event }),
        onGiveUp: (key, e) => record(key, unfinishedRecord(caseOf(key), key, 'limit', `rate limited: ${e.message}`, worker)),
      },
      async (key) => {
        let r: AttemptRecord;
        try {
          r = await runAttempt({
            platform,
            agent: agents.get(key.subject)!,
            case: evalCaseOf(caseOf(key), key.variant, key.prompt),
            epoch: key.epoch,
            tenant: attemptTenant(batch.id, key),
            worker,
            timeoutMs: input.timeoutMs,
            signal: input.signal,
            judge: input.judge,
          });
        } catch (e) {
          if (e instanceof AttemptAbandoned) return;
          if (e instanceof RateLimitedError) throw e;
          r = unfinishedRecord(caseOf(key), key, 'error', `infrastructure: ${(e as Error)?.message ?? String(e)}`, worker);
        }
        await record(key, r);
      },
    );
  } finally {
    clearInterval(beat);
  }
  const { recorded } = await countAttempts(platform, batch.id);
  const complete = !input.signal?.aborted && recorded >= all.length;
  if (complete) await finishBatch(platform, batch.id);
  const attempts = await listAttempts(platform, batch);
  const stored = (await getBatch(platform, batch.id))!;
  return { batch: stored, summary: summarizeBatch(stored, attempts), attempts, ran, complete };
}

/** A subject in words: `openai (gpt-4o)`, `blueprint`. */
export const describeSubject = (s: EvalSubject): string => (s.model ? `${s.agent} (${s.model})` : s.agent);

/** The flags that make `bvl eval --resume` run a subject. */
const resumeFlags = (s: EvalSubject): string => `--agent ${s.agent}${s.model ? ` --model ${s.model}` : ''}`;
