import type { BuildIssue } from '@bvl/build-issue';
import { dropTenant, type EvalBatchStatus, type PlatformContext } from '@bvl/platform';
import { sql } from 'kysely';
import { type CaseFile, CaseFileSchema } from './case-file.ts';
import type { Evidence } from './evidence.ts';
import type { GoldenCase } from './golden-case.ts';
import type { AssertionResult } from './grade.ts';
import type { EvalStatus } from './grade-attempt.ts';
import { type AttemptKey, attemptId, batchOfTenant, EVAL_TENANT_PREFIX, type PlanEntry, plannedAttempts } from './plan-attempts.ts';
import type { AttemptOutcome } from './summarize-batch.ts';

/** Who ran a batch: the agent, its model and endpoint, and the code under test. */
export interface BatchMeta {
  readonly suite: string;
  readonly agent: string;
  readonly model?: string | null | undefined;
  readonly endpoint?: string | null | undefined;
  readonly gitCommit?: string | null | undefined;
}

/** A batch as stored. */
export interface EvalBatch extends BatchMeta {
  readonly id: number;
  readonly epochs: number;
  readonly plan: PlanEntry[];
  readonly status: EvalBatchStatus;
  readonly createdAt: string;
  readonly finishedAt: string | null;
}

/** A session round's fingerprints, as an attempt row keeps them. */
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
  readonly status: EvalStatus;
  readonly failureReason: string | null;
  readonly repairRounds: number | null;
  readonly stopReason: string | null;
  readonly rounds: readonly RoundFingerprints[];
  readonly assertions: readonly AssertionResult[];
  /** The issues left when the build ended. */
  readonly issues: readonly BuildIssue[];
  readonly evidence: Evidence | null;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
  readonly latencyMs: number;
  readonly worker: string;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** A stored attempt: the record, with the batch's agent. */
export type StoredAttempt = AttemptRecord & AttemptOutcome & { readonly batch: number; readonly agent: string; readonly model: string | null };

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
  const at = ctx.now().toISOString();
  const row = await ctx.db
    .insertInto('bvl.ai_eval_batches')
    .values({
      suite: input.suite,
      agent: input.agent,
      model: input.model ?? null,
      endpoint: input.endpoint ?? null,
      git_commit: input.gitCommit ?? null,
      epochs: input.epochs,
      attempts: plannedAttempts(input),
      plan: JSON.stringify(input.plan),
      status: input.status,
      created_at: at,
      heartbeat_at: at,
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
    plan: r.plan as PlanEntry[],
    status: r.status,
    createdAt: iso(r.created_at)!,
    finishedAt: iso(r.finished_at),
  };
}

/** Marks a batch alive (its attempts' tenants are not orphans while it beats). */
export async function heartbeatBatch(ctx: PlatformContext, id: number): Promise<void> {
  await ctx.db.updateTable('bvl.ai_eval_batches').set({ heartbeat_at: ctx.now().toISOString() }).where('id', '=', id).execute();
}

/** Marks a batch finished (idempotent). */
export async function finishBatch(ctx: PlatformContext, id: number): Promise<void> {
  const at = ctx.now().toISOString();
  await ctx.db
    .updateTable('bvl.ai_eval_batches')
    .set({ status: 'finished', finished_at: at, heartbeat_at: at })
    .where('id', '=', id)
    .where('status', '!=', 'finished')
    .execute();
}

/** Writes an attempt's row as soon as it finishes; a re-run attempt (a resumed `error`, a queue retry) replaces its row. */
export async function saveAttempt(ctx: PlatformContext, batch: EvalBatch, r: AttemptRecord): Promise<void> {
  const values = {
    batch_id: batch.id,
    case_name: r.case,
    case_version: r.version,
    variant: r.variant,
    epoch: r.epoch,
    agent: batch.agent,
    model: batch.model ?? null,
    endpoint: batch.endpoint ?? null,
    git_commit: batch.gitCommit ?? null,
    status: r.status,
    failure_reason: r.failureReason,
    repair_rounds: r.repairRounds,
    stop_reason: r.stopReason,
    error_count: r.issues.filter((i) => i.severity === 'error').length,
    fingerprints: JSON.stringify(r.rounds),
    assertions: JSON.stringify(r.assertions),
    issues: JSON.stringify(r.issues),
    evidence: r.evidence === null ? null : JSON.stringify(r.evidence),
    tokens_in: Math.max(0, Math.min(Math.round(r.tokensIn), 2_000_000_000)),
    tokens_out: Math.max(0, Math.min(Math.round(r.tokensOut), 2_000_000_000)),
    cost_usd: Number.isFinite(r.costUsd) && r.costUsd > 0 ? r.costUsd : 0,
    latency_ms: Math.max(0, Math.round(r.latencyMs)),
    worker: r.worker,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
  };
  const { batch_id: _b, case_name: _c, variant: _v, epoch: _e, ...rest } = values;
  await ctx.db
    .insertInto('bvl.ai_eval_runs')
    .values(values)
    .onConflict((oc) => oc.columns(['batch_id', 'case_name', 'variant', 'epoch']).doUpdateSet(rest))
    .execute();
}

/** The attempts of a batch that finished (pass, fail, limit): what a resume or a worker does not run again. An `error` is run again. */
export async function finishedAttempts(ctx: PlatformContext, batch: number): Promise<Set<string>> {
  const rows = await ctx.db
    .selectFrom('bvl.ai_eval_runs')
    .select(['case_name', 'variant', 'epoch'])
    .where('batch_id', '=', batch)
    .where('status', '!=', 'error')
    .execute();
  return new Set(rows.map((r) => attemptId({ case: r.case_name, variant: r.variant, epoch: r.epoch })));
}

/** A batch's attempts, in plan order of case, variant and epoch; `full` adds assertions, issues and evidence. */
export async function listAttempts(ctx: PlatformContext, batch: EvalBatch, options: { readonly full?: boolean } = {}): Promise<StoredAttempt[]> {
  const rows = await ctx.db
    .selectFrom('bvl.ai_eval_runs')
    .select([
      'case_name',
      'case_version',
      'variant',
      'epoch',
      'agent',
      'model',
      'status',
      'failure_reason',
      'repair_rounds',
      'stop_reason',
      'fingerprints',
      'tokens_in',
      'tokens_out',
      'cost_usd',
      'latency_ms',
      'worker',
      'started_at',
      'finished_at',
    ])
    .$if(options.full === true, (q) => q.select(['assertions', 'issues', 'evidence']))
    .where('batch_id', '=', batch.id)
    .orderBy('case_name')
    .orderBy('variant')
    .orderBy('epoch')
    .execute();
  return rows.map((r) => {
    const full = r as typeof r & { assertions?: unknown; issues?: unknown; evidence?: unknown };
    return {
      batch: batch.id,
      agent: r.agent,
      model: r.model,
      case: r.case_name,
      version: r.case_version,
      variant: r.variant,
      epoch: r.epoch,
      status: r.status,
      failureReason: r.failure_reason,
      repairRounds: r.repair_rounds,
      stopReason: r.stop_reason,
      rounds: r.fingerprints as RoundFingerprints[],
      assertions: (full.assertions as AssertionResult[] | undefined) ?? [],
      issues: (full.issues as BuildIssue[] | undefined) ?? [],
      evidence: (full.evidence as Evidence | null | undefined) ?? null,
      tokensIn: Number(r.tokens_in),
      tokensOut: Number(r.tokens_out),
      costUsd: Number(r.cost_usd),
      latencyMs: r.latency_ms,
      worker: r.worker,
      startedAt: iso(r.started_at)!,
      finishedAt: iso(r.finished_at)!,
    };
  });
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

/** A batch that stopped beating this long ago is abandoned: its attempts' tenants are orphans. */
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
    .where('heartbeat_at', '>', new Date(ctx.now().getTime() - BATCH_STALE_MS))
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
