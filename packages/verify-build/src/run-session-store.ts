import { randomUUID } from 'node:crypto';
import type { BuildIssue } from '@bvl/build-issue';
import { checkScope, ensureTenant, type PackageScope, type PlatformContext } from '@bvl/platform';
import type { NextStep, RoundDecision, RoundDiff, RoundKind } from './decide-round.ts';
import { getTenantPolicy } from './run-tenant-policy.ts';
import { DEFAULT_IDLE_MS, type SessionBounds, SessionBoundsSchema, type StopReason } from './session-bounds.ts';
import { MAX_GOAL_LENGTH, SessionError } from './session-error.ts';
import { DEFAULT_POLICY, decideBounds, type EffectivePolicy, type WindowUse } from './tenant-policy.ts';

/** A build session as every surface shows it. */
export interface SessionView {
  readonly id: string;
  readonly tenant: string;
  readonly package: string;
  readonly goal: string;
  readonly status: 'open' | 'stopped';
  readonly stopReason: StopReason | null;
  readonly bounds: SessionBounds;
  /** Rounds recorded (verify and publish). */
  readonly rounds: number;
  readonly repairRounds: number;
  readonly next: NextStep;
  readonly usage: { readonly tokensIn: number; readonly tokensOut: number; readonly costUsd: number; readonly elapsedMs: number };
  readonly createdAt: string;
  readonly publishedAt: string | null;
  /** Last touched (a round, a usage report): an open session idle past `bounds.idleMs` since then is closed as `expired`. */
  readonly updatedAt: string;
  /** Only on the answer that created it: each bound the tenant's policy capped, and why. */
  readonly capped?: readonly string[] | undefined;
}

/** A change the fixer made, as reported to the agent. */
export interface FixChange {
  readonly artifact: { readonly type: string; readonly name: string };
  readonly path: string;
  readonly old?: unknown;
  readonly new?: unknown;
  readonly code: string;
}

/** One recorded round. */
export interface RoundView {
  readonly round: number;
  readonly kind: RoundKind;
  readonly draftHash: string;
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  readonly diff: RoundDiff;
  readonly issues: readonly BuildIssue[];
  readonly fixes: readonly FixChange[];
  readonly stopReason: StopReason | null;
  readonly next: NextStep;
  readonly why: string;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
  readonly durationMs: number;
  readonly createdAt: string;
}

/** Usage an agent reports with a verify call (since its previous call). */
export interface ReportedUsage {
  readonly tokensIn?: number;
  readonly tokensOut?: number;
  readonly costUsd?: number;
}

type SessionRow = {
  id: string;
  tenant_id: string;
  package: string;
  goal: string;
  status: 'open' | 'stopped';
  stop_reason: string | null;
  bounds: unknown;
  rounds: number;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number;
  published_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

const SESSION_COLUMNS = [
  'id',
  'tenant_id',
  'package',
  'goal',
  'status',
  'stop_reason',
  'bounds',
  'rounds',
  'tokens_in',
  'tokens_out',
  'cost_usd',
  'published_at',
  'created_at',
  'updated_at',
] as const;

/** The store as a platform context holds it (a pool, a pinned connection, or a transaction). */
type Db = PlatformContext['db'];

const iso = (d: Date | string) => new Date(d).toISOString();

function toView(row: SessionRow, rounds: readonly RoundView[], now: Date): SessionView {
  const last = rounds[rounds.length - 1];
  const next: NextStep = row.status === 'stopped' ? 'stop' : last && last.kind === 'verify' && last.errors.length === 0 ? 'publish' : 'repair';
  return {
    id: row.id,
    tenant: row.tenant_id,
    package: row.package,
    goal: row.goal,
    status: row.status,
    stopReason: (row.stop_reason as StopReason | null) ?? null,
    bounds: SessionBoundsSchema.parse(row.bounds),
    rounds: Number(row.rounds),
    repairRounds: Math.max(0, rounds.filter((r) => r.kind === 'verify').length - 1),
    next,
    usage: {
      tokensIn: Number(row.tokens_in),
      tokensOut: Number(row.tokens_out),
      costUsd: Number(row.cost_usd),
      elapsedMs: Math.max(0, now.getTime() - new Date(row.created_at).getTime()),
    },
    createdAt: iso(row.created_at),
    publishedAt: row.published_at ? iso(row.published_at) : null,
    updatedAt: iso(row.updated_at),
  };
}

/** The idle limit of a session's bounds (sessions opened before idle limits existed: the default). */
const idleMsOf = (bounds: unknown): number => {
  const ms = (bounds as { idleMs?: unknown } | null)?.idleMs;
  return typeof ms === 'number' && ms > 0 ? ms : DEFAULT_IDLE_MS;
};

/**
 * An open session idle past its limit is closed as `expired` when it is next touched (read,
 * verified, published): a killed build does not leave its session open for good. Returns the row
 * as it is now. The update is guarded by the same condition, so two readers at once expire it once.
 */
async function expireIfIdle(db: Db, row: SessionRow, now: Date): Promise<SessionRow> {
  if (row.status !== 'open' || now.getTime() - new Date(row.updated_at).getTime() <= idleMsOf(row.bounds)) return row;
  await db
    .updateTable('bvl.build_sessions')
    .set({ status: 'stopped', stop_reason: 'expired', updated_at: now.toISOString() })
    .where('id', '=', row.id)
    .where('status', '=', 'open')
    .execute();
  const again = await db.selectFrom('bvl.build_sessions').select(SESSION_COLUMNS).where('id', '=', row.id).executeTakeFirst();
  return (again as SessionRow | undefined) ?? row;
}

/**
 * The sweep: closes every open session (of one package, or all) idle past its limit as `expired`.
 * Each session's own `idleMs` is read from its bounds. Returns how many it closed.
 */
export async function expireSessions(ctx: PlatformContext, scope?: PackageScope): Promise<number> {
  let q = ctx.db.selectFrom('bvl.build_sessions').select(SESSION_COLUMNS).where('status', '=', 'open');
  if (scope) q = q.where('tenant_id', '=', scope.tenant).where('package', '=', scope.package);
  const now = ctx.now();
  let closed = 0;
  for (const row of (await q.execute()) as SessionRow[]) if ((await expireIfIdle(ctx.db, row, now)).status !== row.status) closed++;
  return closed;
}

/** What the package's sessions opened within the window hold (see {@link WindowUse}); a session that ended clean holds nothing. */
async function windowUse(db: Db, scope: PackageScope, now: Date, windowMs: number): Promise<WindowUse> {
  if (windowMs <= 0) return { rounds: 0, tokens: 0, usd: 0 };
  const since = new Date(now.getTime() - windowMs).toISOString();
  const rows = (await db
    .selectFrom('bvl.build_sessions')
    .select(SESSION_COLUMNS)
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .where('created_at', '>', since as unknown as Date)
    .execute()) as SessionRow[];
  const counted = rows.filter((r) => r.stop_reason !== 'clean');
  if (counted.length === 0) return { rounds: 0, tokens: 0, usd: 0 };
  const verifies = await db
    .selectFrom('bvl.build_rounds')
    .select(['session_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where(
      'session_id',
      'in',
      counted.map((r) => r.id),
    )
    .where('kind', '=', 'verify')
    .groupBy('session_id')
    .execute();
  const verified = new Map(verifies.map((v) => [v.session_id, Number(v.n)]));
  let rounds = 0;
  let tokens = 0;
  let usd = 0;
  for (const r of counted) {
    const usedRounds = verified.get(r.id) ?? 0;
    const usedTokens = Number(r.tokens_in) + Number(r.tokens_out);
    const usedUsd = Number(r.cost_usd);
    if (r.status === 'open') {
      // An open session holds what it may still use: its whole bounds (or what it used, if more).
      const b = SessionBoundsSchema.safeParse(r.bounds);
      rounds += Math.max(usedRounds, (b.success ? b.data.maxRounds : 0) + 1);
      tokens += Math.max(usedTokens, b.success ? (b.data.budgetTokens ?? 0) : 0);
      usd += Math.max(usedUsd, b.success ? (b.data.budgetUsd ?? 0) : 0);
    } else {
      rounds += usedRounds;
      tokens += usedTokens;
      usd += usedUsd;
    }
  }
  const oldest = Math.min(...counted.map((r) => new Date(r.created_at).getTime()));
  return { rounds, tokens, usd: Math.round(usd * 1e6) / 1e6, freesAt: new Date(oldest + windowMs).toISOString() };
}

/**
 * Creates a build session for a package towards a goal. Its bounds are decided once, here, under
 * the tenant's policy (over `serverPolicy`, the server's default) and snapshotted with the session:
 * a bound asked above the maximum gets the maximum (said in `capped`), an absent one the default,
 * and the package's window (see TenantPolicySchema.windowMs) leaves it at most what the package's
 * other recent sessions have not used or do not hold — none left is a {@link SessionError}
 * `limited` with when some frees up. Creates are serialised per package (its row is locked), so
 * two sessions opened at once cannot both take what the window has left; a later policy change
 * never alters an open session's bounds.
 */
export async function createSession(
  ctx: PlatformContext,
  input: {
    readonly tenant: string;
    readonly package: string;
    readonly goal: string;
    readonly bounds?: Partial<SessionBounds> | undefined;
    readonly serverPolicy?: EffectivePolicy | undefined;
  },
): Promise<SessionView> {
  const scope = { tenant: input.tenant, package: input.package };
  checkScope(scope);
  if (typeof input.goal !== 'string' || input.goal.trim() === '') throw new SessionError('a session needs a goal: what the app is for, in a sentence or more');
  if (input.goal.length > MAX_GOAL_LENGTH) throw new SessionError(`the goal is ${input.goal.length} characters, over the ${MAX_GOAL_LENGTH}-character limit`);
  const asked = SessionBoundsSchema.partial().safeParse(input.bounds ?? {});
  if (!asked.success)
    throw new SessionError(`invalid session bounds: ${asked.error.issues.map((i) => `${i.path.join('.') || '(bounds)'}: ${i.message}`).join('; ')}`);
  await ensureTenant(ctx, scope);
  const id = randomUUID();
  const capped = await ctx.db.transaction().execute(async (trx) => {
    // One create per package at a time: the window is read and taken from under this lock.
    await trx.selectFrom('bvl.packages').select('name').where('tenant_id', '=', scope.tenant).where('name', '=', scope.package).forUpdate().execute();
    const now = ctx.now();
    const tctx = { ...ctx, db: trx };
    await expireSessions(tctx, scope);
    const policy = (await getTenantPolicy(tctx, scope.tenant, input.serverPolicy ?? DEFAULT_POLICY)).effective;
    const decision = decideBounds(asked.data as Partial<SessionBounds>, policy, await windowUse(trx, scope, now, policy.windowMs));
    if (!decision.ok) {
      const wait = decision.retryAt ? Math.max(1, Math.ceil((Date.parse(decision.retryAt) - now.getTime()) / 1000)) : undefined;
      throw new SessionError(
        `no new session for package ${JSON.stringify(scope.package)} now: ${decision.why}. ${wait ? `One can open in ${wait} s (at ${decision.retryAt}); ` : ''}a session that ends clean holds nothing, and cancelling an open one frees what it did not use.`,
        'limited',
        decision.retryAt,
        wait,
      );
    }
    const bounds = SessionBoundsSchema.safeParse(decision.bounds);
    if (!bounds.success)
      throw new SessionError(`invalid session bounds: ${bounds.error.issues.map((i) => `${i.path.join('.') || '(bounds)'}: ${i.message}`).join('; ')}`);
    const at = now.toISOString();
    await trx
      .insertInto('bvl.build_sessions')
      .values({
        id,
        tenant_id: scope.tenant,
        package: scope.package,
        goal: input.goal,
        status: 'open' as const,
        stop_reason: null,
        bounds: JSON.stringify(bounds.data),
        created_at: at,
        updated_at: at,
      })
      .execute();
    return decision.capped;
  });
  const view = await getSession(ctx, { tenant: scope.tenant, id });
  return capped.length ? { ...view, capped } : view;
}

async function sessionRow(db: Db, tenant: string, id: string, lock?: 'update', now?: Date): Promise<SessionRow> {
  checkScope({ tenant });
  // An id that is not a UUID cannot name a session; say so instead of asking the database.
  if (typeof id !== 'string' || !/^[0-9a-f-]{36}$/i.test(id)) throw new SessionError(`unknown session ${JSON.stringify(String(id).slice(0, 80))}`, 'not_found');
  let q = db.selectFrom('bvl.build_sessions').select(SESSION_COLUMNS).where('tenant_id', '=', tenant).where('id', '=', id);
  if (lock === 'update') q = q.forUpdate();
  const row = await q.executeTakeFirst();
  // Another tenant's session is "unknown" too: its existence does not leak.
  if (!row) throw new SessionError(`unknown session ${JSON.stringify(id)} in tenant ${JSON.stringify(tenant)}`, 'not_found');
  return now ? expireIfIdle(db, row as SessionRow, now) : (row as SessionRow);
}

/** The round columns every view needs; `issues` (the big one) only when asked. */
const ROUND_COLUMNS = [
  'round',
  'kind',
  'draft_hash',
  'fingerprints',
  'error_count',
  'warning_count',
  'diff',
  'fixes',
  'stop_reason',
  'tokens_in',
  'tokens_out',
  'cost_usd',
  'duration_ms',
  'created_at',
] as const;

async function roundRows(db: Db, id: string) {
  return db.selectFrom('bvl.build_rounds').select(ROUND_COLUMNS).where('session_id', '=', id).orderBy('round').execute();
}

type RoundRow = Awaited<ReturnType<typeof roundRows>>[number];

function toRound(r: RoundRow, issues: readonly BuildIssue[]): RoundView {
  const fp = r.fingerprints as { errors: string[]; warnings: string[] };
  const diff = r.diff as RoundDiff & { next: NextStep; why: string };
  return {
    round: r.round,
    kind: r.kind,
    draftHash: r.draft_hash,
    errors: fp.errors,
    warnings: fp.warnings,
    diff: { fixed: diff.fixed, persisting: diff.persisting, new: diff.new, reappeared: diff.reappeared, masked: diff.masked ?? [] },
    issues,
    fixes: r.fixes as FixChange[],
    stopReason: (r.stop_reason as StopReason | null) ?? null,
    next: diff.next,
    why: diff.why,
    tokensIn: Number(r.tokens_in),
    tokensOut: Number(r.tokens_out),
    costUsd: Number(r.cost_usd),
    durationMs: r.duration_ms,
    createdAt: iso(r.created_at),
  };
}

/** A session and its rounds (without their issue lists), read in two queries. */
export interface SessionState {
  readonly view: SessionView;
  readonly rounds: readonly RoundView[];
}

/** Loads a session of the package with its rounds; the one read verify and publish rounds start from. */
export async function loadSession(ctx: PlatformContext, scope: PackageScope, id: string): Promise<SessionState> {
  return readState(ctx.db, ctx.now(), scope, id);
}

/** The session and its rounds read on `db` (with `lock`: the session row locked for the caller's transaction). */
async function readState(db: Db, now: Date, scope: PackageScope, id: string, lock?: 'update'): Promise<SessionState> {
  const row = await sessionRow(db, scope.tenant, id, lock, now);
  if (row.package !== scope.package)
    throw new SessionError(`session ${JSON.stringify(id)} builds package ${JSON.stringify(row.package)}, not ${JSON.stringify(scope.package)}`);
  const rounds = (await roundRows(db, row.id)).map((r) => toRound(r, []));
  return { view: toView(row, rounds, now), rounds };
}

/** A session of the tenant; {@link SessionError} `not_found` for an unknown id (or another tenant's). */
export async function getSession(ctx: PlatformContext, input: { readonly tenant: string; readonly id: string }): Promise<SessionView> {
  const row = await sessionRow(ctx.db, input.tenant, input.id, undefined, ctx.now());
  return toView(
    row,
    (await roundRows(ctx.db, row.id)).map((r) => toRound(r, [])),
    ctx.now(),
  );
}

/** The session, checked to belong to the package a call is about. */
export async function sessionOf(ctx: PlatformContext, scope: PackageScope, id: string): Promise<SessionView> {
  return (await loadSession(ctx, scope, id)).view;
}

/** The package's sessions, newest first (at most `limit`, default 50). */
export async function listSessions(ctx: PlatformContext, scope: PackageScope, limit = 50): Promise<SessionView[]> {
  checkScope(scope);
  const rows = await ctx.db
    .selectFrom('bvl.build_sessions')
    .select(SESSION_COLUMNS)
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(Math.max(1, Math.min(limit, 500)))
    .execute();
  const now = ctx.now();
  return Promise.all(
    rows.map(async (r) =>
      toView(
        await expireIfIdle(ctx.db, r as SessionRow, now),
        (await roundRows(ctx.db, r.id)).map((x) => toRound(x, [])),
        now,
      ),
    ),
  );
}

/** A session's rounds, in order, each with the issues it found. */
export async function listRounds(ctx: PlatformContext, input: { readonly tenant: string; readonly id: string }): Promise<RoundView[]> {
  const row = await sessionRow(ctx.db, input.tenant, input.id);
  const rows = await ctx.db
    .selectFrom('bvl.build_rounds')
    .select([...ROUND_COLUMNS, 'issues'])
    .where('session_id', '=', row.id)
    .orderBy('round')
    .execute();
  return rows.map((r) => toRound(r, r.issues as BuildIssue[]));
}

/**
 * The issues of the session's last round of a kind, and the earlier issues it could not check
 * (masked): what the next round's diff tells fixed from masked by.
 */
export async function lastRoundIssues(
  ctx: PlatformContext,
  id: string,
  kind: RoundKind,
): Promise<{ readonly issues: readonly BuildIssue[]; readonly masked: readonly BuildIssue[] }> {
  const row = await ctx.db
    .selectFrom('bvl.build_rounds')
    .select(['issues', 'diff'])
    .where('session_id', '=', id)
    .where('kind', '=', kind)
    .orderBy('round', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return { issues: [], masked: [] };
  return { issues: row.issues as BuildIssue[], masked: ((row.diff as { maskedIssues?: BuildIssue[] }).maskedIssues ?? []) as BuildIssue[] };
}

/** Adds reported usage to the session's totals (every verify call reports, a new round or not). */
export async function addUsage(ctx: PlatformContext, id: string, usage: ReportedUsage | undefined): Promise<void> {
  const tin = clampUsage(usage?.tokensIn);
  const tout = clampUsage(usage?.tokensOut);
  const usd = usage?.costUsd !== undefined && Number.isFinite(usage.costUsd) && usage.costUsd > 0 ? usage.costUsd : 0;
  if (tin === 0 && tout === 0 && usd === 0) return;
  await ctx.db
    .updateTable('bvl.build_sessions')
    .set((eb) => ({
      tokens_in: eb('tokens_in', '+', tin),
      tokens_out: eb('tokens_out', '+', tout),
      cost_usd: eb('cost_usd', '+', usd),
      updated_at: ctx.now().toISOString(),
    }))
    .where('id', '=', id)
    .execute();
}

const clampUsage = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), 1_000_000_000) : 0);

/** A round to record, as the caller decided it against the session read under the lock. */
export interface RoundToRecord {
  readonly kind: RoundKind;
  readonly draftHash: string;
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  readonly issues: readonly BuildIssue[];
  readonly fixes: readonly FixChange[];
  readonly decision: RoundDecision;
  readonly usage?: ReportedUsage | undefined;
  readonly durationMs: number;
  readonly published?: boolean;
  /** Earlier issues this round could not check (masked), kept so a later round can tell they are still masked. */
  readonly maskedIssues?: readonly BuildIssue[] | undefined;
}

/**
 * Records a round atomically: in one transaction the session row is locked (`FOR UPDATE`), the
 * session and its rounds are read as they are now, and `decide` — given that state — returns the
 * round to record (its decision made against exactly these rounds, bounds and usage) or nothing
 * (an unchanged draft set). A stopped session records nothing and `decide` is not asked: any
 * number of verifies and publishes at once in one session count their rounds one after the other,
 * so no bound is passed and a cancel is never overtaken. Returns the state read under the lock and
 * whether a round was recorded.
 */
export async function recordRound(
  ctx: PlatformContext,
  scope: PackageScope,
  id: string,
  decide: (locked: SessionState) => RoundToRecord | undefined,
): Promise<{ readonly recorded: boolean; readonly locked: SessionState }> {
  const at = ctx.now().toISOString();
  return ctx.db.transaction().execute(async (trx) => {
    const locked = await readState(trx, ctx.now(), scope, id, 'update');
    if (locked.view.status !== 'open') return { recorded: false, locked };
    const round = decide(locked);
    if (!round) return { recorded: false, locked };
    const n = locked.view.rounds;
    await trx
      .insertInto('bvl.build_rounds')
      .values({
        session_id: id,
        round: n,
        kind: round.kind,
        draft_hash: round.draftHash,
        fingerprints: JSON.stringify({ errors: round.errors, warnings: round.warnings }),
        error_count: round.errors.length,
        warning_count: round.warnings.length,
        issues: JSON.stringify(round.issues),
        diff: JSON.stringify({
          ...round.decision.diff,
          next: round.decision.next,
          why: round.decision.why,
          ...(round.maskedIssues?.length ? { maskedIssues: round.maskedIssues } : {}),
        }),
        fixes: JSON.stringify(round.fixes),
        stop_reason: round.decision.stop ?? null,
        tokens_in: clampUsage(round.usage?.tokensIn),
        tokens_out: clampUsage(round.usage?.tokensOut),
        cost_usd: round.usage?.costUsd && round.usage.costUsd > 0 ? round.usage.costUsd : 0,
        duration_ms: Math.max(0, Math.round(round.durationMs)),
        created_at: at,
      })
      .execute();
    await trx
      .updateTable('bvl.build_sessions')
      .set({
        rounds: n + 1,
        status: round.decision.stop ? 'stopped' : 'open',
        stop_reason: round.decision.stop ?? null,
        updated_at: at,
        ...(round.published ? { published_at: at } : {}),
      })
      .where('id', '=', id)
      .execute();
    return { recorded: true, locked };
  });
}

/** The error a stopped session answers a publish (or any call that needs it open) with. */
export function stoppedError(view: Pick<SessionView, 'id' | 'stopReason'>, during?: 'publish'): SessionError {
  return new SessionError(
    `session ${JSON.stringify(view.id)} ${during ? 'was stopped during the publish' : 'is stopped'} (${view.stopReason ?? 'stopped'}): a stopped session takes no more rounds and no publish, so nothing was published. Start a new session to go on building.`,
    'stopped',
  );
}

/**
 * Inside a publish's transaction, right before it commits: the session must still be open. Its
 * row is locked (`FOR SHARE`) until the commit, so a cancel arriving now waits for the publish and
 * one that came first refuses it ({@link SessionError} `stopped`; the publish rolls back).
 */
export async function assertSessionOpen(trx: Db, tenant: string, id: string): Promise<void> {
  const row = await trx
    .selectFrom('bvl.build_sessions')
    .select(['id', 'status', 'stop_reason'])
    .where('tenant_id', '=', tenant)
    .where('id', '=', id)
    .forShare()
    .executeTakeFirst();
  if (!row) throw new SessionError(`unknown session ${JSON.stringify(id)} in tenant ${JSON.stringify(tenant)}`, 'not_found');
  if (row.status !== 'open') throw stoppedError({ id: row.id, stopReason: (row.stop_reason as StopReason | null) ?? null }, 'publish');
}

/** Why a loop outside the rounds may stop a session: an abort, a budget spent between rounds, an agent that changed nothing. */
export type ExternalStopReason = Extract<StopReason, 'cancelled' | 'budget' | 'no_progress' | 'endpoint_error' | 'expired'>;

/**
 * Stops an open session for a reason decided between rounds (an unchanged draft set records no
 * round, so no round's decision can stop it): the build stays as it is. A stopped session keeps
 * its first reason.
 */
export async function stopSession(
  ctx: PlatformContext,
  input: { readonly tenant: string; readonly id: string; readonly reason: ExternalStopReason },
): Promise<SessionView> {
  const row = await sessionRow(ctx.db, input.tenant, input.id, undefined, ctx.now());
  if (row.status === 'open')
    await ctx.db
      .updateTable('bvl.build_sessions')
      .set({ status: 'stopped', stop_reason: input.reason, updated_at: ctx.now().toISOString() })
      .where('id', '=', row.id)
      .where('status', '=', 'open')
      .execute();
  return getSession(ctx, input);
}

/** Cancels a session (Ctrl-C, an abort): it stops as `cancelled`, the build stays as it is. */
export async function cancelSession(ctx: PlatformContext, input: { readonly tenant: string; readonly id: string }): Promise<SessionView> {
  return stopSession(ctx, { tenant: input.tenant, id: input.id, reason: 'cancelled' });
}
