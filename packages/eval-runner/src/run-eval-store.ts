import type { BuildIssue } from '@bvl/build-issue';
import { dropTenant, type EvalBatchStatus, type PlatformContext } from '@bvl/platform';
import { sql } from 'kysely';
import type { AttemptCard, AttemptSession } from './attempt-session.ts';
import { type CaseFile, CaseFileSchema } from './case-file.ts';
import { type AgentReview, DEFAULT_PROMPT, type EvalUsage } from './eval-agent.ts';
import { agentOfSubject, type EvalSubject, subjectId } from './eval-subject.ts';
import type { Evidence } from './evidence.ts';
import type { GoldenCase } from './golden-case.ts';
import type { AssertionResult } from './grade.ts';
import type { EvalStatus } from './grade-attempt.ts';
import { type AttemptKey, attemptId, batchOfTenant, type DefectFilter, EVAL_TENANT_PREFIX, type PlanEntry, plannedAttempts } from './plan-attempts.ts';
import type { AttemptOutcome } from './summarize-batch.ts';

/**
 * Liveness is the database's clock, not a process's: heartbeats are written and judged stale by the
 * server's `now()`, so a worker whose clock is off (another machine, or a fixed clock) neither
 * sweeps a live batch's tenants nor keeps a dead one's.
 */
const DB_NOW = sql<string>`now()`;

/** Who ran a batch: its suite, the subjects under test (agent × model), and the code under test. */
export interface BatchMeta {
  readonly suite: string;
  readonly subjects: readonly EvalSubject[];
  readonly gitCommit?: string | null | undefined;
  /** The defect sets it ran (absent on batches from before it was kept). */
  readonly defects?: DefectFilter | null | undefined;
  /** The judge model of rubric assertions, if the batch had one. */
  readonly judge?: string | null | undefined;
}

/** A batch as stored. */
export interface EvalBatch extends BatchMeta {
  readonly id: number;
  /** The subjects' agents, comma-separated (one for a batch of one agent). */
  readonly agent: string;
  /** The subjects' models, comma-separated; null when no subject has one. */
  readonly model: string | null;
  readonly endpoint: string | null;
  readonly epochs: number;
  readonly plan: PlanEntry[];
  readonly status: EvalBatchStatus;
  readonly createdAt: string;
  readonly finishedAt: string | null;
}

const distinct = (xs: ReadonlyArray<string | null | undefined>): string[] => [...new Set(xs.filter((x): x is string => !!x))];

/** A session round's fingerprints, as an attempt row keeps them (the full rounds are in `session`). */
export interface RoundFingerprints {
  readonly round: number;
  readonly kind: 'verify' | 'publish';
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  readonly fixes: number;
  readonly stopReason: string | null;
}

/** Everything one attempt produced: one `ai_eval_runs` row. */
export interface AttemptRecord extends AttemptKey {
  readonly version: string;
  /** The outcome the case expects of this agent: `fail` for a defect set the agent cannot repair by design. */
  readonly expected: 'pass' | 'fail';
  readonly status: EvalStatus;
  readonly failureReason: string | null;
  readonly repairRounds: number | null;
  readonly stopReason: string | null;
  readonly rounds: readonly RoundFingerprints[];
  readonly assertions: readonly AssertionResult[];
  /** The issues left when the build ended. */
  readonly issues: readonly BuildIssue[];
  readonly evidence: Evidence | null;
  /** The build session and its rounds, kept past the tenant; null when the agent never opened one. */
  readonly session: AttemptSession | null;
  /** The build-health card when the attempt ended; null when it never got that far. */
  readonly card: AttemptCard | null;
  /** The agent's intent review; null when it ran none. */
  readonly review: AgentReview | null;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
  /** What the judge of the rubric assertions spent (not the agent's). */
  readonly judgeUsage: EvalUsage;
  readonly latencyMs: number;
  readonly worker: string;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** An earlier try of an attempt, as the row it was before a re-run replaced it (never overwritten: kept in `tries`). */
export interface AttemptTry {
  readonly status: EvalStatus;
  readonly failureReason: string | null;
  readonly worker: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly latencyMs: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
  /** The whole row as it was (issues, evidence, session, …). */
  readonly row: Readonly<Record<string, unknown>>;
}

/** A stored attempt: the record, with the batch's agent, and its earlier tries when read in full. */
export type StoredAttempt = AttemptRecord &
  AttemptOutcome & { readonly batch: number; readonly agent: string; readonly model: string | null; readonly tries: readonly AttemptTry[] };

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

/** Stores each case at its version (once: a version's content never changes). */
export async function saveCases(ctx: PlatformContext, cases: readonly GoldenCase[]): Promise<void> {
  if (cases.length === 0) return;
  const at = ctx.now().toISOString();
  await ctx.db
    .insertInto('bvl.ai_eval_cases')
    .values(
      cases.map((c) => {
        const { blueprint, dir: _dir, version, ...file } = c;
        return {
          name: c.name,
          version,
          prompt: c.prompt,
          assertions: JSON.stringify(c.assertions),
          tags: JSON.stringify(c.tags),
          content: JSON.stringify({ case: file, blueprint }),
          created_at: at,
        };
      }),
    )
    .onConflict((oc) => oc.columns(['name', 'version']).doNothing())
    .execute();
}

/** The cases of a plan, at exactly the versions it names, from the store (a worker or a resume runs what the batch planned). */
export async function loadPlannedCases(ctx: PlatformContext, plan: readonly PlanEntry[]): Promise<Map<string, GoldenCase>> {
  const wanted = [...new Map(plan.map((e) => [`${e.case}@${e.version}`, e])).values()];
  const out = new Map<string, GoldenCase>();
  if (wanted.length === 0) return out;
  const rows = await ctx.db
    .selectFrom('bvl.ai_eval_cases')
    .select(['name', 'version', 'content'])
    .where((eb) => eb.or(wanted.map((w) => eb.and([eb('name', '=', w.case), eb('version', '=', w.version)]))))
    .execute();
  for (const r of rows) {
    const content = r.content as { case: CaseFile; blueprint: GoldenCase['blueprint'] };
    out.set(r.name, {
      ...CaseFileSchema.parse(content.case),
      blueprint: content.blueprint,
      dir: `(stored ${r.name}@${r.version.slice(0, 12)})`,
      version: r.version,
    });
  }
  const missing = wanted.filter((w) => !out.has(w.case));
  if (missing.length > 0) throw new Error(`the eval store lacks case ${missing.map((m) => `${m.case}@${m.version.slice(0, 12)}`).join(', ')}`);
  return out;
}

/** Opens a batch: its plan and who runs it. */
export async function createBatch(
  ctx: PlatformContext,
  input: BatchMeta & { readonly epochs: number; readonly plan: readonly PlanEntry[]; readonly status: 'running' | 'queued' },
): Promise<EvalBatch> {
  if (input.subjects.length === 0) throw new Error('a batch needs at least one subject (agent) to run');
  const at = ctx.now().toISOString();
  const models = distinct(input.subjects.map((s) => s.model));
  const endpoints = distinct(input.subjects.map((s) => s.endpoint));
  const row = await ctx.db
    .insertInto('bvl.ai_eval_batches')
    .values({
      suite: input.suite,
      agent: distinct(input.subjects.map((s) => s.agent)).join(','),
      model: models.length ? models.join(',') : null,
      endpoint: endpoints.length ? endpoints.join(',') : null,
      git_commit: input.gitCommit ?? null,
      epochs: input.epochs,
      attempts: plannedAttempts(input),
      plan: JSON.stringify(input.plan),
      status: input.status,
      created_at: at,
      heartbeat_at: DB_NOW,
      subjects: JSON.stringify(
        input.subjects.map((s) => ({
          agent: s.agent,
          model: s.model ?? null,
          endpoint: s.endpoint ?? null,
          ...(s.readsPrompt === false ? { readsPrompt: false } : {}),
        })),
      ),
      defects: input.defects ?? null,
      judge: input.judge ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return (await getBatch(ctx, Number(row.id)))!;
}

/** A batch by id, or undefined. */
export async function getBatch(ctx: PlatformContext, id: number): Promise<EvalBatch | undefined> {
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  const r = await ctx.db.selectFrom('bvl.ai_eval_batches').selectAll().where('id', '=', id).executeTakeFirst();
  if (!r) return undefined;
  return {
    id: Number(r.id),
    suite: r.suite,
    agent: r.agent,
    model: r.model,
    endpoint: r.endpoint,
    gitCommit: r.git_commit,
    epochs: r.epochs,
    // Plans from before prompt variants name none: each entry is the case's own prompt.
    plan: (r.plan as Array<Omit<PlanEntry, 'prompt'> & { prompt?: string }>).map((e) => ({ ...e, prompt: e.prompt ?? DEFAULT_PROMPT })),
    subjects: r.subjects as EvalSubject[],
    defects: (r.defects as DefectFilter | null) ?? null,
    judge: r.judge,
    status: r.status,
    createdAt: iso(r.created_at)!,
    finishedAt: iso(r.finished_at),
  };
}

/** Marks a batch alive (its attempts' tenants are not orphans while it beats). */
export async function heartbeatBatch(ctx: PlatformContext, id: number): Promise<void> {
  await ctx.db.updateTable('bvl.ai_eval_batches').set({ heartbeat_at: DB_NOW }).where('id', '=', id).execute();
}

/** Marks a batch finished (idempotent). */
export async function finishBatch(ctx: PlatformContext, id: number): Promise<void> {
  const at = ctx.now().toISOString();
  await ctx.db
    .updateTable('bvl.ai_eval_batches')
    .set({ status: 'finished', finished_at: at, heartbeat_at: DB_NOW })
    .where('id', '=', id)
    .where('status', '!=', 'finished')
    .execute();
}

const clampTokens = (n: number) => Math.max(0, Math.min(Math.round(n), 2_000_000_000));
const cleanCost = (usd: number) => (Number.isFinite(usd) && usd > 0 ? usd : 0);

/**
 * Writes an attempt's row as soon as it finishes. A re-run attempt (a resumed `error`, a queue
 * retry) replaces its row, and the row it replaces is appended to `tries` in the same statement
 * (ON CONFLICT reads the old row), so no try is ever lost, whatever runs at the same time.
 */
export async function saveAttempt(ctx: PlatformContext, batch: EvalBatch, r: AttemptRecord): Promise<void> {
  const subject = batch.subjects.find((s) => subjectId(s) === r.subject);
  const values = {
    batch_id: batch.id,
    case_name: r.case,
    case_version: r.version,
    variant: r.variant,
    prompt_variant: r.prompt,
    subject: r.subject,
    epoch: r.epoch,
    agent: subject?.agent ?? agentOfSubject(r.subject),
    model: subject?.model ?? null,
    endpoint: subject?.endpoint ?? null,
    git_commit: batch.gitCommit ?? null,
    expected: r.expected,
    status: r.status,
    failure_reason: r.failureReason,
    repair_rounds: r.repairRounds,
    stop_reason: r.stopReason,
    error_count: r.issues.filter((i) => i.severity === 'error').length,
    fingerprints: JSON.stringify(r.rounds),
    assertions: JSON.stringify(r.assertions),
    issues: JSON.stringify(r.issues),
    evidence: r.evidence === null ? null : JSON.stringify(r.evidence),
    session: r.session === null ? null : JSON.stringify(r.session),
    card: r.card === null ? null : JSON.stringify(r.card),
    review: r.review === null ? null : JSON.stringify(r.review),
    tokens_in: clampTokens(r.tokensIn),
    tokens_out: clampTokens(r.tokensOut),
    cost_usd: cleanCost(r.costUsd),
    judge_tokens_in: clampTokens(r.judgeUsage.tokensIn),
    judge_tokens_out: clampTokens(r.judgeUsage.tokensOut),
    judge_cost_usd: cleanCost(r.judgeUsage.costUsd),
    latency_ms: Math.max(0, Math.round(r.latencyMs)),
    worker: r.worker,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
  };
  const { batch_id: _b, case_name: _c, variant: _v, prompt_variant: _p, subject: _s, epoch: _e, ...rest } = values;
  await ctx.db
    .insertInto('bvl.ai_eval_runs')
    .values(values)
    .onConflict((oc) =>
      oc.columns(['batch_id', 'case_name', 'variant', 'prompt_variant', 'subject', 'epoch']).doUpdateSet({
        ...rest,
        // The row being replaced, whole, minus its own history and id.
        tries: sql`ai_eval_runs.tries || jsonb_build_array(to_jsonb(ai_eval_runs) - 'tries' - 'id')`,
      }),
    )
    .execute();
}

/** The attempts of a batch that finished (pass, fail, limit): what a resume or a worker does not run again. An `error` is run again. */
export async function finishedAttempts(ctx: PlatformContext, batch: number): Promise<Set<string>> {
  const rows = await ctx.db
    .selectFrom('bvl.ai_eval_runs')
    .select(['case_name', 'variant', 'prompt_variant', 'subject', 'epoch'])
    .where('batch_id', '=', batch)
    .where('status', '!=', 'error')
    .execute();
  return new Set(rows.map((r) => attemptId({ case: r.case_name, variant: r.variant, prompt: r.prompt_variant, subject: r.subject, epoch: r.epoch })));
}

/** A batch's attempts, in order of case, variant, prompt, subject and epoch; `full` adds assertions, issues, evidence, session, card, review and earlier tries. */
export async function listAttempts(ctx: PlatformContext, batch: EvalBatch, options: { readonly full?: boolean } = {}): Promise<StoredAttempt[]> {
  const rows = await ctx.db
    .selectFrom('bvl.ai_eval_runs')
    .select([
      'case_name',
      'case_version',
      'variant',
      'prompt_variant',
      'subject',
      'epoch',
      'agent',
      'model',
      'expected',
      'status',
      'failure_reason',
      'repair_rounds',
      'stop_reason',
      'fingerprints',
      'tokens_in',
      'tokens_out',
      'cost_usd',
      'judge_tokens_in',
      'judge_tokens_out',
      'judge_cost_usd',
      'latency_ms',
      'worker',
      'started_at',
      'finished_at',
    ])
    .$if(options.full === true, (q) => q.select(['assertions', 'issues', 'evidence', 'session', 'card', 'review', 'tries']))
    .where('batch_id', '=', batch.id)
    .orderBy('case_name')
    .orderBy('variant')
    .orderBy('prompt_variant')
    .orderBy('subject')
    .orderBy('epoch')
    .execute();
  return rows.map((r) => {
    const full = r as typeof r & {
      assertions?: unknown;
      issues?: unknown;
      evidence?: unknown;
      session?: unknown;
      card?: unknown;
      review?: unknown;
      tries?: unknown;
    };
    return {
      batch: batch.id,
      agent: r.agent,
      model: r.model,
      case: r.case_name,
      version: r.case_version,
      variant: r.variant,
      prompt: r.prompt_variant,
      subject: r.subject,
      epoch: r.epoch,
      expected: r.expected === 'fail' ? 'fail' : 'pass',
      status: r.status,
      failureReason: r.failure_reason,
      repairRounds: r.repair_rounds,
      stopReason: r.stop_reason,
      rounds: r.fingerprints as RoundFingerprints[],
      assertions: (full.assertions as AssertionResult[] | undefined) ?? [],
      issues: (full.issues as BuildIssue[] | undefined) ?? [],
      evidence: (full.evidence as Evidence | null | undefined) ?? null,
      session: (full.session as AttemptSession | null | undefined) ?? null,
      card: (full.card as AttemptCard | null | undefined) ?? null,
      review: (full.review as AgentReview | null | undefined) ?? null,
      tries: ((full.tries as Array<Record<string, unknown>> | undefined) ?? []).map(asTry),
      tokensIn: Number(r.tokens_in),
      tokensOut: Number(r.tokens_out),
      costUsd: Number(r.cost_usd),
      judgeUsage: { tokensIn: Number(r.judge_tokens_in), tokensOut: Number(r.judge_tokens_out), costUsd: Number(r.judge_cost_usd) },
      latencyMs: r.latency_ms,
      worker: r.worker,
      startedAt: iso(r.started_at)!,
      finishedAt: iso(r.finished_at)!,
    };
  });
}

/** An earlier try, read from the row it was. */
function asTry(row: Record<string, unknown>): AttemptTry {
  const num = (k: string) => Number(row[k] ?? 0);
  const text = (k: string) => (row[k] === null || row[k] === undefined ? null : String(row[k]));
  return {
    status: row.status as EvalStatus,
    failureReason: text('failure_reason'),
    worker: text('worker') ?? '',
    startedAt: iso(text('started_at')) ?? '',
    finishedAt: iso(text('finished_at')) ?? '',
    latencyMs: num('latency_ms'),
    tokensIn: num('tokens_in'),
    tokensOut: num('tokens_out'),
    costUsd: num('cost_usd'),
    row,
  };
}

/** Batches of a suite and agent, newest first: before `before` when given, finished ones only unless asked. */
export async function listBatches(
  ctx: PlatformContext,
  filter: { readonly suite?: string; readonly agent?: string; readonly before?: number; readonly finishedOnly?: boolean; readonly limit?: number },
): Promise<EvalBatch[]> {
  const rows = await ctx.db
    .selectFrom('bvl.ai_eval_batches')
    .select('id')
    .$if(filter.suite !== undefined, (q) => q.where('suite', '=', filter.suite!))
    .$if(filter.agent !== undefined, (q) => q.where('agent', '=', filter.agent!))
    .$if(filter.before !== undefined, (q) => q.where('id', '<', filter.before!))
    .$if(filter.finishedOnly === true, (q) => q.where('status', '=', 'finished'))
    .orderBy('id', 'desc')
    .limit(Math.max(1, Math.min(filter.limit ?? 20, 500)))
    .execute();
  return (await Promise.all(rows.map((r) => getBatch(ctx, Number(r.id))))).filter((b): b is EvalBatch => b !== undefined);
}

/** A batch that stopped beating this long ago (by the database's clock) is abandoned: its attempts' tenants are orphans. */
export const BATCH_STALE_MS = 120_000;

/**
 * Drops the tenants eval attempts left behind (a killed run, a crashed worker): those of batches
 * that finished, that no longer exist, or that have not beaten for {@link BATCH_STALE_MS}; with
 * `batch`, every tenant of that batch (a resume owns it now). Returns the tenants dropped.
 */
export async function sweepEvalTenants(ctx: PlatformContext, options: { readonly batch?: number } = {}): Promise<string[]> {
  const tenants = await ctx.db
    .selectFrom('bvl.tenants')
    .select('id')
    .where('id', 'like', `${EVAL_TENANT_PREFIX.replaceAll('_', '\\_')}%`)
    .execute();
  const byBatch = new Map<number, string[]>();
  for (const t of tenants) {
    const b = batchOfTenant(t.id);
    if (b !== undefined) byBatch.set(b, [...(byBatch.get(b) ?? []), t.id]);
  }
  if (byBatch.size === 0) return [];
  const live = await ctx.db
    .selectFrom('bvl.ai_eval_batches')
    .select('id')
    .where('id', 'in', [...byBatch.keys()])
    .where('status', '!=', 'finished')
    .where('heartbeat_at', '>', sql<Date>`now() - make_interval(secs => ${BATCH_STALE_MS / 1000})`)
    .execute();
  const alive = new Set(live.map((r) => Number(r.id)));
  const dropped: string[] = [];
  for (const [b, ts] of [...byBatch].sort(([a], [c]) => a - c)) {
    if (alive.has(b) && b !== options.batch) continue;
    for (const t of ts.sort()) {
      await dropTenant(ctx, t);
      dropped.push(t);
    }
  }
  return dropped;
}

/** A batch's recorded attempts, per status and in all (one query; "is it done" compares `recorded` with plannedAttempts). */
export async function countAttempts(
  ctx: PlatformContext,
  batch: number,
): Promise<{ readonly byStatus: Record<EvalStatus, number>; readonly recorded: number }> {
  const rows = await ctx.db
    .selectFrom('bvl.ai_eval_runs')
    .select(['status', sql<number>`count(*)::int`.as('n')])
    .where('batch_id', '=', batch)
    .groupBy('status')
    .execute();
  const byStatus: Record<EvalStatus, number> = { pass: 0, fail: 0, error: 0, limit: 0 };
  for (const r of rows) byStatus[r.status] = Number(r.n);
  return { byStatus, recorded: byStatus.pass + byStatus.fail + byStatus.error + byStatus.limit };
}
