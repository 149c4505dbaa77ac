import type { PlatformContext } from '@bvl/platform';
import PgBoss from 'pg-boss';
import { type EvalAgent, RateLimitedError } from './eval-agent.ts';
import { type EvalSubject, subjectId } from './eval-subject.ts';
import type { GoldenCase } from './golden-case.ts';
import type { EvalStatus } from './grade-attempt.ts';
import { type AttemptKey, attemptId, attemptTenant, type DefectFilter, evalCaseOf, planAttempts, planEntries, plannedAttempts } from './plan-attempts.ts';
import type { RubricJudge } from './rubric-judge.ts';
import { AttemptAbandoned, DEFAULT_ATTEMPT_TIMEOUT_MS, runAttempt } from './run-attempt.ts';
import {
  type AttemptRecord,
  type BatchMeta,
  countAttempts,
  createBatch,
  type EvalBatch,
  finishBatch,
  finishedAttempts,
  getBatch,
  heartbeatBatch,
  loadPlannedCases,
  saveAttempt,
  saveCases,
  sweepEvalTenants,
} from './run-eval-store.ts';
import { EvalRunError, HEARTBEAT_MS, unfinishedRecord, workerName } from './run-evals.ts';

/** The queue of eval attempts: one job per attempt. */
export const ATTEMPT_QUEUE = 'bvl-eval-attempt';
/** The queue the nightly cron schedule sends to: one job starts one batch. */
export const NIGHTLY_QUEUE = 'bvl-eval-nightly';
/** The PostgreSQL schema pg-boss keeps its tables in (BVL_QUEUE_SCHEMA overrides it). */
export const DEFAULT_QUEUE_SCHEMA = 'pgboss';
/** Retries of a job whose worker died or was rate limited; then the attempt is recorded `error` or `limit`. */
export const JOB_RETRIES = 3;

/** An attempt job's payload. */
export interface AttemptJob extends AttemptKey {
  readonly batch: number;
}

/** What the nightly schedule asks for: how to run the batch it starts (the cases are the worker's folder). */
export interface NightlyRequest {
  readonly agent: string;
  /** Models to run the agent over (a matrix); the agent's own when absent. */
  readonly models?: readonly string[] | undefined;
  /** The judge model of rubric assertions. */
  readonly judge?: string | undefined;
  readonly suite?: string | undefined;
  readonly epochs?: number | undefined;
  readonly defects?: DefectFilter | undefined;
  /** Case names to run; all when absent. */
  readonly cases?: readonly string[] | undefined;
}

/** An open queue: pg-boss started on the platform's PostgreSQL, both queues created. */
export interface EvalQueue {
  readonly boss: PgBoss;
  close(): Promise<void>;
}

/**
 * Opens the eval queue in the same PostgreSQL database as the store (pg-boss, in its own schema).
 * `schedule` lets this process fire cron schedules (workers do; a process that only enqueues need not).
 */
export async function openEvalQueue(options: {
  readonly databaseUrl: string;
  readonly schema?: string | undefined;
  readonly schedule?: boolean | undefined;
  readonly pollingIntervalSeconds?: number | undefined;
}): Promise<EvalQueue> {
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    schema: options.schema ?? DEFAULT_QUEUE_SCHEMA,
    schedule: options.schedule ?? false,
    supervise: options.schedule ?? false,
    max: 4,
    application_name: 'bvl-eval',
  });
  // pg-boss reports background errors as events; without a listener they would crash the process.
  boss.on('error', () => {});
  await boss.start();
  for (const name of [ATTEMPT_QUEUE, NIGHTLY_QUEUE]) await ensureQueue(boss, name);
  return { boss, close: () => boss.stop({ graceful: true, timeout: 5_000, wait: true } as PgBoss.StopOptions) };
}

/** Tries at creating a queue while other processes create it too. */
const CREATE_QUEUE_TRIES = 8;

/**
 * Creates a queue unless it exists. Processes starting at once (workers, the enqueuer) race to
 * create it, and pg-boss's creation can deadlock with a concurrent one on PostgreSQL; the loser
 * waits a little and looks again, since the queue existing afterwards is all that matters.
 */
async function ensureQueue(boss: PgBoss, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await boss.getQueue(name)) return;
    try {
      await boss.createQueue(name);
      return;
    } catch (e) {
      if (attempt >= CREATE_QUEUE_TRIES) throw e;
      await sleep(50 + Math.random() * 200 * attempt);
    }
  }
}

/** What {@link enqueueBatch} is given: a new batch's cases, its subjects and how to run them. */
export interface EnqueueInput extends Omit<BatchMeta, 'defects'> {
  readonly cases: readonly GoldenCase[];
  readonly epochs?: number | undefined;
  readonly defects?: DefectFilter | undefined;
  readonly timeoutMs?: number | undefined;
}

/**
 * Opens a batch as `queued` and puts one job per attempt on the queue. The cases are stored at
 * their versions first, so a worker on any machine runs exactly what was planned.
 */
export async function enqueueBatch(ctx: PlatformContext, queue: EvalQueue, input: EnqueueInput): Promise<EvalBatch> {
  if (input.cases.length === 0) throw new EvalRunError('no golden case to run');
  const plan = planEntries(input.cases, input.defects ?? 'all');
  await saveCases(ctx, input.cases);
  const batch = await createBatch(ctx, { ...input, defects: input.defects ?? 'all', epochs: input.epochs ?? 1, plan, status: 'queued' });
  const timeout = input.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  await queue.boss.insert(
    planAttempts(plan, batch.subjects, batch.epochs).map((k) => ({
      name: ATTEMPT_QUEUE,
      data: { batch: batch.id, case: k.case, variant: k.variant, prompt: k.prompt, subject: k.subject, epoch: k.epoch } satisfies AttemptJob,
      singletonKey: `${batch.id}/${attemptId(k)}`,
      retryLimit: JOB_RETRIES,
      retryDelay: 5,
      retryBackoff: true,
      // A worker that dies mid-attempt lets its job expire; it is then retried from a fresh tenant.
      expireInSeconds: Math.ceil(timeout / 1000) + 120,
    })),
  );
  return batch;
}

/** Registers (or replaces) the nightly cron schedule: each firing starts one batch, enqueued by a worker. */
export async function scheduleNightly(queue: EvalQueue, cron: string, request: NightlyRequest): Promise<void> {
  await queue.boss.schedule(NIGHTLY_QUEUE, cron, request, { tz: 'UTC' });
}

/** Removes the nightly schedule. */
export async function unscheduleNightly(queue: EvalQueue): Promise<void> {
  await queue.boss.unschedule(NIGHTLY_QUEUE);
}

/** The nightly schedule, if any: its cron expression and request. */
export async function nightlySchedule(queue: EvalQueue): Promise<{ cron: string; request: NightlyRequest } | undefined> {
  const s = (await queue.boss.getSchedules()).find((x) => x.name === NIGHTLY_QUEUE);
  return s ? { cron: s.cron, request: s.data as NightlyRequest } : undefined;
}

/** What a worker reports as it goes. */
export type WorkerEvent =
  | { readonly kind: 'attempt'; readonly batch: number; readonly key: AttemptKey; readonly status: EvalStatus; readonly latencyMs: number }
  | { readonly kind: 'skipped'; readonly batch: number; readonly key: AttemptKey; readonly why: string }
  | { readonly kind: 'finished'; readonly batch: number }
  | { readonly kind: 'nightly'; readonly batch: number; readonly attempts: number }
  | { readonly kind: 'rate_limited'; readonly batch: number; readonly key: AttemptKey; readonly waitMs: number }
  | { readonly kind: 'failed'; readonly error: string };

/** A running worker: stop it to finish the attempts in flight and leave. */
export interface EvalWorker {
  /** Attempts this worker recorded. */
  readonly done: () => number;
  /** When the worker last took or finished a job (ms since epoch). */
  readonly lastActive: () => number;
  /** Attempts in flight now. */
  readonly busy: () => number;
  /** Stops taking jobs; waits up to `graceMs` (default 30 s) for the attempts in flight, then abandons them to the queue. */
  stop(graceMs?: number): Promise<void>;
}

/** What a worker needs. */
export interface RunWorkerInput {
  readonly platform: PlatformContext;
  readonly queue: EvalQueue;
  /** The agent of a batch's subject, or undefined when this worker does not have it (the job then fails for another worker). */
  readonly agentNamed: (name: string, model?: string | null) => EvalAgent | undefined;
  /** The judge a batch names, or undefined when this worker has none (its rubric assertions are then ungraded). */
  readonly judgeNamed?: ((model: string) => RubricJudge | undefined) | undefined;
  /** Attempts at once. */
  readonly concurrency?: number | undefined;
  readonly pollingIntervalSeconds?: number | undefined;
  readonly timeoutMs?: number | undefined;
  /** The golden cases of this machine, for the nightly batch (read when it fires). */
  readonly loadCases?: (() => Promise<readonly GoldenCase[]>) | undefined;
  readonly gitCommit?: string | null | undefined;
  readonly worker?: string | undefined;
  readonly onEvent?: ((e: WorkerEvent) => void) | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A worker: takes attempt jobs off the queue, `concurrency` at once, and runs each exactly as a
 * local run does (its own tenant, graded from the platform, the row stored as it finishes);
 * finishes a batch when its last attempt lands; heartbeats the batches it works on. A rate-limited
 * attempt pauses this slot and goes back on the queue (pg-boss retries with back-off) until its
 * retries are spent, then it is `limit`. With `loadCases`, it also answers the nightly schedule by
 * enqueueing a batch of this machine's cases.
 */
export async function runEvalWorker(input: RunWorkerInput): Promise<EvalWorker> {
  const { platform, queue } = input;
  const worker = input.worker ?? workerName();
  const batches = new Map<number, { batch: EvalBatch; cases: Map<string, GoldenCase> }>();
  const active = new Map<number, number>();
  let done = 0;
  let lastActive = Date.now();
  let stopping = false;
  const stop = new AbortController();

  const batchOf = async (id: number) => {
    const known = batches.get(id);
    if (known) return known;
    const batch = await getBatch(platform, id);
    if (!batch) return undefined;
    const entry = { batch, cases: await loadPlannedCases(platform, batch.plan) };
    batches.set(id, entry);
    return entry;
  };

  const attempt = async (job: PgBoss.JobWithMetadata<AttemptJob>) => {
    lastActive = Date.now();
    const { batch: id, ...key } = job.data;
    const entry = await batchOf(id);
    if (!entry) return input.onEvent?.({ kind: 'skipped', batch: id, key, why: 'the batch no longer exists' });
    if ((await finishedAttempts(platform, id)).has(attemptId(key))) return input.onEvent?.({ kind: 'skipped', batch: id, key, why: 'already recorded' });
    const subject = entry.batch.subjects.find((s) => subjectId(s) === key.subject);
    const agent = subject ? input.agentNamed(subject.agent, subject.model) : undefined;
    if (!agent) throw new EvalRunError(`this worker has no agent for subject "${key.subject}"`);
    const c = entry.cases.get(key.case);
    if (!c) throw new EvalRunError(`batch ${id} plans case ${key.case}, which the store lacks`);
    active.set(id, (active.get(id) ?? 0) + 1);
    try {
      let record: AttemptRecord;
      try {
        record = await runAttempt({
          platform,
          agent,
          case: evalCaseOf(c, key.variant, key.prompt),
          epoch: key.epoch,
          tenant: attemptTenant(id, key),
          worker,
          timeoutMs: input.timeoutMs,
          signal: stop.signal,
          judge: entry.batch.judge ? input.judgeNamed?.(entry.batch.judge) : undefined,
        });
      } catch (e) {
        if (e instanceof AttemptAbandoned) throw e; // the job goes back on the queue
        if (!(e instanceof RateLimitedError)) throw e;
        if (job.retryCount < job.retryLimit) {
          const waitMs = (e as { retryAfterMs?: number }).retryAfterMs ?? 5_000 * 2 ** job.retryCount;
          input.onEvent?.({ kind: 'rate_limited', batch: id, key, waitMs });
          await sleep(Math.min(waitMs, 60_000)); // this slot backs off before it takes the next job
          throw e;
        }
        record = unfinishedRecord(c, key, 'limit', `rate limited: ${(e as Error).message}`, worker);
      }
      await saveAttempt(platform, entry.batch, record);
      done++;
      input.onEvent?.({ kind: 'attempt', batch: id, key, status: record.status, latencyMs: record.latencyMs });
      if ((await countAttempts(platform, id)).recorded >= plannedAttempts(entry.batch)) {
        await finishBatch(platform, id);
        await sweepEvalTenants(platform);
        input.onEvent?.({ kind: 'finished', batch: id });
      }
    } finally {
      active.set(id, (active.get(id) ?? 1) - 1);
      lastActive = Date.now();
    }
  };

  const beat = setInterval(() => {
    for (const [id, n] of active) if (n > 0) void heartbeatBatch(platform, id).catch(() => {});
  }, HEARTBEAT_MS);
  beat.unref();

  const polling = { pollingIntervalSeconds: input.pollingIntervalSeconds ?? 2, batchSize: 1, includeMetadata: true as const };
  let inFlight = 0;
  for (let i = 0; i < Math.max(1, input.concurrency ?? 1); i++) {
    const slot: { id?: string } = {};
    slot.id = await queue.boss.work<AttemptJob>(ATTEMPT_QUEUE, polling, async (jobs) => {
      for (const job of jobs) {
        if (stopping) throw new AttemptAbandoned('the worker is stopping');
        inFlight++;
        try {
          await attempt(job);
        } catch (e) {
          if (!(e instanceof AttemptAbandoned) && !(e instanceof RateLimitedError))
            input.onEvent?.({ kind: 'failed', error: `${attemptId(job.data)} of batch ${job.data.batch}: ${(e as Error)?.message ?? String(e)}` });
          throw e;
        } finally {
          inFlight--;
        }
      }
      // pg-boss waits a polling interval after every fetch; after a job there may be more, so look
      // again at once (an idle slot still polls at the interval).
      if (jobs.length > 0 && slot.id && !stopping) queue.boss.notifyWorker(slot.id);
    });
  }
  if (input.loadCases) {
    const loadCases = input.loadCases;
    await queue.boss.work<NightlyRequest>(NIGHTLY_QUEUE, polling, async (jobs) => {
      for (const job of jobs) {
        const r = job.data;
        const all = await loadCases();
        const cases = r.cases ? all.filter((c) => r.cases!.includes(c.name)) : all;
        const subjects: EvalSubject[] = (r.models?.length ? r.models : [undefined]).map((m) => {
          const agent = input.agentNamed(r.agent, m);
          return {
            agent: r.agent,
            model: m ?? agent?.model ?? null,
            endpoint: agent?.endpoint ?? null,
            ...(agent?.readsPrompt === false ? { readsPrompt: false } : {}),
          };
        });
        const batch = await enqueueBatch(platform, queue, {
          suite: r.suite ?? 'nightly',
          subjects,
          judge: r.judge ?? null,
          gitCommit: input.gitCommit,
          cases,
          epochs: r.epochs,
          defects: r.defects,
          timeoutMs: input.timeoutMs,
        });
        input.onEvent?.({ kind: 'nightly', batch: batch.id, attempts: plannedAttempts(batch) });
      }
    });
  }
  return {
    done: () => done,
    lastActive: () => lastActive,
    busy: () => inFlight,
    async stop(graceMs = 30_000) {
      stopping = true;
      for (const name of [ATTEMPT_QUEUE, NIGHTLY_QUEUE]) await queue.boss.offWork(name).catch(() => {});
      // Attempts in flight may finish within the grace period; after it they are abandoned, and
      // their jobs go back on the queue for another worker (from a fresh tenant).
      const until = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < until) await sleep(100);
      stop.abort();
      while (inFlight > 0) await sleep(50);
      clearInterval(beat);
    },
  };
}

/** How long {@link waitForBatch} waits between looks. */
export const WAIT_POLL_MS = 1_000;

/** Waits until every attempt of a batch is recorded (or the signal aborts), telling the counts as they move. */
export async function waitForBatch(
  ctx: PlatformContext,
  batch: EvalBatch,
  options: { readonly signal?: AbortSignal; readonly onCounts?: (counts: Record<EvalStatus, number>, done: number, total: number) => void } = {},
): Promise<boolean> {
  const total = plannedAttempts(batch);
  let last = -1;
  while (!options.signal?.aborted) {
    const { byStatus: counts, recorded: done } = await countAttempts(ctx, batch.id);
    if (done !== last) options.onCounts?.(counts, done, total);
    last = done;
    if (done >= total) {
      await finishBatch(ctx, batch.id);
      return true;
    }
    await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
  }
  return false;
}
