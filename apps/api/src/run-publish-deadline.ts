// A publish over HTTP or MCP within the request's bound: cancelled if the bound passes before it
// commits (nothing published: 503 timeout), accepted if it passes after (202: it goes on, and
// get_publish / GET …/publishes/{id} follows it). Never an error for work that will commit.
import { describeDbError, type PackageScope, type PlatformContext, type PublishRecord, readPublish, tenantSchema } from '@bvl/platform';
import type { PublishBuildResult } from '@bvl/verify-build';
import { ApiError } from './to-error-response.ts';

/** How long a finished accepted publish's answer is kept in the process for get_publish. */
const KEEP_MS = 15 * 60_000;
/** Seconds an answer's Retry-After asks a caller to wait. */
export const RETRY_AFTER_S = 5;

/** An accepted publish this process runs (or ran): running until `done` is set. */
interface Followed {
  done?: { readonly status: 'succeeded' | 'failed'; readonly result: PublishBuildResult };
}
const FOLLOWED = new WeakMap<PlatformContext, Map<string, Followed>>();
const keyOf = (scope: PackageScope, id: number) => `${scope.tenant}\u0000${scope.package}\u0000${id}`;

/** Where an accepted publish is followed (the HTTP route; get_publish over MCP). */
export const pollPath = (scope: PackageScope, id: number) =>
  `/v1/tenants/${encodeURIComponent(scope.tenant)}/packages/${encodeURIComponent(scope.package)}/publishes/${id}`;

/** What {@link publishWithin} gives the publish it runs. */
export interface PublishHooks {
  readonly signal: AbortSignal;
  readonly onCommitting: (publishId: number) => void;
}

/** A publish's result, or (past the bound, committing) its id to follow. */
export type Within = { readonly kind: 'done'; readonly result: PublishBuildResult } | { readonly kind: 'accepted'; readonly publishId: number };

/**
 * Runs `publish` (the whole tool call: the package check too) until `by` (epoch ms; the request's
 * bound counts from its start). Past the bound before
 * the commit: the publish is aborted (its rollback is certain — the abort precedes its last check)
 * and a 503 `timeout` ApiError is thrown. Past the bound once committing: `accepted`, and the
 * publish goes on, its end kept for {@link publishStatus}.
 */
export async function publishWithin(
  ctx: PlatformContext,
  scope: PackageScope,
  by: number,
  publish: (hooks: PublishHooks) => Promise<PublishBuildResult>,
  outer?: AbortSignal,
): Promise<Within> {
  const controller = new AbortController();
  // The request's backstop (a publish that could not even start in time) cancels it too.
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', () => controller.abort(outer.reason), { once: true });
  let committing: number | undefined;
  const work = publish({
    signal: controller.signal,
    onCommitting: (id) => {
      committing = id;
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, by - Date.now()));
  });
  try {
    const first = await Promise.race([work, late]);
    if (first !== 'late') return { kind: 'done', result: first };
  } finally {
    clearTimeout(timer);
  }
  if (committing === undefined) {
    controller.abort(new Error("the request's bound passed"));
    work.catch(() => {});
    throw new ApiError(
      'timeout',
      "the publish did not finish within the request's bound and was cancelled before it committed: nothing was published; retry shortly",
      undefined,
      { headers: { 'Retry-After': String(RETRY_AFTER_S) } },
    );
  }
  follow(ctx, scope, committing, work);
  return { kind: 'accepted', publishId: committing };
}

function follow(ctx: PlatformContext, scope: PackageScope, id: number, work: Promise<PublishBuildResult>): void {
  let map = FOLLOWED.get(ctx);
  if (!map) FOLLOWED.set(ctx, (map = new Map()));
  const entry: Followed = {};
  const key = keyOf(scope, id);
  map.set(key, entry);
  const forget = () => setTimeout(() => map.delete(key), KEEP_MS).unref();
  work.then(
    (result) => {
      entry.done = { status: result.outcome === 'published' ? 'succeeded' : 'failed', result };
      forget();
    },
    (e: unknown) => {
      entry.done = {
        status: 'failed',
        result: {
          outcome: 'failed',
          published: false,
          ok: false,
          issues: [],
          schema: tenantSchema(scope.tenant),
          error: `the publish failed after it was accepted: ${describeDbError(e)}`,
          session: null,
        },
      };
      forget();
    },
  );
}

/** What get_publish answers: the status, where it got to, and the publish answer once known. */
export interface PublishStatus {
  readonly status: 'running' | 'succeeded' | 'failed' | 'interrupted';
  readonly publishId: number;
  readonly stage?: PublishRecord['stage'];
  readonly message: string;
  readonly result?: PublishBuildResult;
}

/**
 * A publish of the package by id: this process's own accepted publish as it runs and ends, else
 * what the publish log and probe results record. A publish whose seeds or probes never finished
 * reads as `running` only while its runner is alive (this process; on PostgreSQL, the backend
 * that ran it); otherwise `interrupted` — the next publish re-applies the seeds.
 */
export async function publishStatus(ctx: PlatformContext, scope: PackageScope, id: number): Promise<PublishStatus> {
  const own = FOLLOWED.get(ctx)?.get(keyOf(scope, id));
  if (own?.done?.result.seedApplied?.interrupted !== undefined)
    return {
      status: 'interrupted',
      publishId: id,
      stage: 'done',
      message: `publish #${id} committed its metadata and tables, but a database failure stopped its seeds (${own.done.result.seedApplied.interrupted}). Publish again: the next publish re-applies the seeds.`,
      result: own.done.result,
    };
  if (own?.done)
    return {
      status: own.done.status,
      publishId: id,
      ...(own.done.status === 'succeeded' ? { stage: 'done' as const } : {}),
      message:
        own.done.status === 'succeeded'
          ? `publish #${id} finished: ${own.done.result.ok ? 'no error in any layer' : 'issues remain (see result.issues)'}`
          : `publish #${id} failed: ${own.done.result.error ?? 'see result'}`,
      result: own.done.result,
    };
  const record = await readPublish(ctx, scope, id);
  if (!record) {
    if (own) return { status: 'running', publishId: id, message: `publish #${id} is committing` };
    throw new ApiError('not_found', `package ${JSON.stringify(scope.package)} has no publish #${id}`);
  }
  const result = resultOf(scope, record);
  if (record.stage === 'done' && record.seedApplied?.interrupted === undefined)
    return {
      status: 'succeeded',
      publishId: id,
      stage: 'done',
      message: `publish #${id} finished: ${result.ok ? 'no error in any layer' : 'issues remain (see result.issues)'}`,
      result,
    };
  const running = own !== undefined || (record.stage !== 'done' && record.runnerAlive === true);
  if (running) return { status: 'running', publishId: id, stage: record.stage, message: `publish #${id} is ${record.stage}: poll again shortly`, result };
  const what =
    record.stage === 'seeding'
      ? 'its seeds never finished'
      : record.stage === 'probing'
        ? 'its probes never ran to the end'
        : 'a database failure stopped its seeds';
  return {
    status: 'interrupted',
    publishId: id,
    stage: record.stage,
    message: `publish #${id} committed its metadata and tables, but ${what} (the process that ran it stopped, or the database failed). Publish again: the next publish re-applies the seeds and runs the probes.`,
    result,
  };
}

/** A recorded publish as a publish result (its L3 issues; the gate's warnings live in the original answer only). */
function resultOf(scope: PackageScope, r: PublishRecord): PublishBuildResult {
  const issues = r.probes?.issues ?? [];
  const errors = issues.some((i) => i.severity === 'error') || (r.seedApplied !== undefined && !r.seedApplied.success);
  return {
    outcome: 'published',
    published: true,
    ok: r.stage === 'done' && !errors,
    issues,
    items: r.published as PublishBuildResult['items'] & object,
    retired: r.retired as PublishBuildResult['retired'] & object,
    ...(r.seedApplied ? { seedApplied: r.seedApplied } : {}),
    ...(r.probes ? { probes: r.probes.report as unknown as NonNullable<PublishBuildResult['probes']> } : {}),
    schema: tenantSchema(scope.tenant),
    publishId: r.publishId,
    session: null,
  };
}
