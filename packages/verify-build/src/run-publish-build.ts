import { type BuildIssue, fingerprint, makeIssue, sortIssues } from '@bvl/build-issue';
import {
  abortReason,
  createProbeEngine,
  describeDbError,
  isConnectionLost,
  LockTimeoutError,
  type PackageScope,
  type PlatformContext,
  type PublishedItem,
  type PublishOptions,
  type PublishResult,
  previousProbeResult,
  publishPackage,
  type RetiredItem,
  recordProbeResult,
  type SeedApplied,
  storedSeedReader,
  tenantSchema,
  withPackageLock,
} from '@bvl/platform';
import { type Carried, type ProbeEngine, type ProbeReport, planCarry, runProbes, type SkippedProbe } from '@bvl/runtime-probes';
import type { Checked } from '@bvl/verify';
import { type BuildCard, buildCard } from './build-card.ts';
import { decideRound } from './decide-round.ts';
import { draftHash } from './draft-hash.ts';
import { addUsage, assertSessionOpen, loadSession, type ReportedUsage, recordRound, type SessionState, stoppedError } from './run-session-store.ts';
import { cardSession, pastOf } from './run-verify-build.ts';
import { SessionError } from './session-error.ts';

/** What a gated publish is asked. */
export interface PublishBuildInput extends PackageScope {
  readonly session?: string | undefined;
  readonly usage?: ReportedUsage | undefined;
  /** Let tombstones drop a retired object's table / delete a retired seed's rows. */
  readonly dropData?: boolean | undefined;
  /** Seeds whose `env` list lacks this are not applied (default `dev`). */
  readonly env?: string | undefined;
  /** Let a republish convert rows a type/option change would lose data of (see PublishOptions.allowDataChange). */
  readonly allowDataChange?: boolean | undefined;
  /**
   * Runs under the package lock right before the publish, on the pinned connection: `bvl publish`
   * replaces the package's drafts with its files here, so a concurrent run cannot publish them.
   */
  readonly prepare?: ((pinned: PlatformContext) => Promise<void>) | undefined;
  /** Told as each long step starts (a CLI shows progress with it). */
  readonly onStep?: ((step: 'publish' | 'probe') => void) | undefined;
  /**
   * The caller's time bound: an abort before the commit cancels the publish (see
   * PublishOptions.signal) and the result is `failed` with `cancelled: true`, nothing published;
   * after the commit it changes nothing.
   */
  readonly signal?: AbortSignal | undefined;
  /** How long to wait for the package's (and tenant's) lock another publish holds (default LOCK_WAIT_MS). */
  readonly lockWaitMs?: number | undefined;
  /** Told once when the wait for the package's lock goes on: what, who holds it (the CLI prints it). */
  readonly onLockWait?: ((w: { what: string; holders: string; waitedMs: number }) => void) | undefined;
  /** Told the publish's log id once it is past its last cancellation point (see PublishOptions.onCommitting). */
  readonly onCommitting?: ((publishId: number) => void) | undefined;
}

/** Test hooks of {@link publishBuild}. */
export interface PublishBuildHooks {
  /** Passed to the publish (PublishOptions.interleave): tests cancel the session in the middle of it. */
  readonly interleave?: PublishOptions['interleave'];
}

/** The L3 report as stored and returned: counts per plane (its issues travel in `issues`), and rows seeded. */
export type ProbeSummary = Omit<ProbeReport, 'issues'> & { readonly rows: number };

/** What a gated publish did. `published` is true only when the metadata and tables were committed. */
export interface PublishBuildResult {
  readonly outcome: 'published' | 'refused' | 'nothing_to_publish' | 'failed';
  readonly published: boolean;
  /** No error left in any layer (L1/L2 of what was published, L3 of the live app). */
  readonly ok: boolean;
  readonly issues: BuildIssue[];
  readonly checked?: Checked;
  readonly items?: PublishedItem[];
  readonly retired?: RetiredItem[];
  readonly seedApplied?: SeedApplied;
  readonly probes?: ProbeSummary;
  readonly schema: string;
  /** The publish log id of a committed publish (its probes are recorded against it). */
  readonly publishId?: number;
  readonly error?: string;
  /** The caller's signal cancelled the publish before it committed: nothing was published. */
  readonly cancelled?: boolean;
  /** It rolled back because the connection to the database was lost (nothing was published; retry once it is back). */
  readonly databaseUnavailable?: boolean;
  readonly card?: BuildCard;
  readonly session: SessionState['view'] | null;
}

/** Rows the seeds wrote or found in place. */
const rowsOf = (s: SeedApplied): number => s.inserted + s.updated + s.skipped;

/**
 * The gate and what follows it: publishes the package's drafts through `publishPackage` (which
 * refuses while L1 or L2 has an error, on the exact graph it would promote, inside the package
 * lock), then runs the L3 probes on the live tables, stores their result against the publish, and
 * records a publish round in the session: no L3 error ends the session `clean`; L3 errors re-open
 * it for repair rounds within the same bounds. Never reports as published what was not, and never
 * throws for what was: a failure after the commit (probes, their record, the session round) is a
 * `publish_interrupted` error on a `published` result. The probes cover the published package.
 */
export async function publishBuild(ctx: PlatformContext, input: PublishBuildInput, hooks: PublishBuildHooks = {}): Promise<PublishBuildResult> {
  const started = Date.now();
  const scope = { tenant: input.tenant, package: input.package };
  let state = input.session !== undefined ? await loadSession(ctx, scope, input.session) : null;
  if (state) await addUsage(ctx, state.view.id, input.usage);
  // A stopped session takes no publish; one stopped while this publish runs rolls it back (beforeCommit).
  if (state && state.view.status !== 'open') throw stoppedError(state.view);
  const sessionId = state?.view.id;
  const options: PublishOptions = {
    ...(input.dropData ? { dropData: true } : {}),
    ...(input.env ? { env: input.env } : {}),
    ...(input.allowDataChange ? { allowDataChange: true } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.onCommitting ? { onCommitting: input.onCommitting } : {}),
    ...(input.lockWaitMs !== undefined ? { lockWaitMs: input.lockWaitMs } : {}),
    ...(sessionId !== undefined ? { beforeCommit: (trx) => assertSessionOpen(trx, scope.tenant, sessionId) } : {}),
    ...(hooks.interleave ? { interleave: hooks.interleave } : {}),
  };
  let result: Awaited<ReturnType<typeof publishPackage>>;
  input.onStep?.('publish');
  try {
    result = await withPackageLock(
      ctx,
      scope,
      async (pinned) => {
        await input.prepare?.(pinned);
        return publishPackage(pinned, scope, options);
      },
      { signal: input.signal, onWait: input.onLockWait, ...(input.lockWaitMs !== undefined ? { waitMs: input.lockWaitMs } : {}) },
    );
  } catch (e) {
    // Cancelled while it waited for the package (or before): nothing ran.
    const cancelled = input.signal?.aborted === true && !(e instanceof SessionError);
    if (!(e instanceof LockTimeoutError) && !cancelled) throw e;
    const why = cancelled ? `the publish was cancelled before it committed (${abortReason(input.signal!)})` : (e as Error).message;
    return {
      outcome: 'failed',
      published: false,
      ok: false,
      issues: [],
      error: `nothing was published: ${why}`,
      ...(cancelled ? { cancelled: true } : {}),
      schema: tenantSchema(scope.tenant),
      session: state?.view ?? null,
    };
  }
  if (result.outcome !== 'published') {
    const issues = result.outcome === 'refused' ? result.issues : [];
    return {
      outcome: result.outcome,
      published: false,
      ok: result.outcome === 'nothing_to_publish',
      issues,
      ...(result.outcome === 'refused' ? { checked: result.checked, card: buildCard({ issues, checked: result.checked }) } : {}),
      ...(result.outcome === 'failed'
        ? {
            error: result.error,
            ...(result.cancelled ? { cancelled: true } : {}),
            ...(!result.cancelled && isConnectionLost(result.cause) ? { databaseUnavailable: true } : {}),
          }
        : {}),
      schema: result.schema,
      session: state?.view ?? null,
    };
  }
  // From here on the package is published: a failure is reported on the result, never thrown.
  const after: string[] = [];
  let probeIssues: BuildIssue[] = [];
  let report: Omit<ProbeReport, 'issues'>;
  try {
    // The platform's engine is checked against runtime-probes' port here, where both meet.
    input.onStep?.('probe');
    const engine: ProbeEngine = createProbeEngine(ctx, { tenant: scope.tenant, graph: result.graph });
    const carried = await planCarryOver(ctx, scope, result);
    ({ issues: probeIssues, ...report } = await runProbes({
      engine,
      graph: result.graph,
      seedApplied: result.seedApplied,
      // A large stored seed's records are read part by part from the store, as the publish read them.
      seedRecords: storedSeedReader(ctx.db, scope.tenant),
      scope: result.packageArtifacts,
      ...(input.env ? { env: input.env } : {}),
      ...(carried ? { carried } : {}),
    }));
  } catch (e) {
    after.push(`the probes could not run (${describeDbError(e)})`);
    const why = `the probes could not run: ${describeDbError(e)}`;
    report = { checked: zero(), total: zero(), skipped: [], unavailable: { seeds: why, views: why, widgets: why, objects: why } };
  }
  const probes: ProbeSummary = { ...report, rows: rowsOf(result.seedApplied) };
  try {
    await recordProbeResult(ctx, scope, result.publishId, { issues: probeIssues, report: probes });
  } catch (e) {
    after.push(`the probe result could not be recorded (${describeDbError(e)})`);
  }

  const interrupted = (): BuildIssue[] =>
    after.length === 0
      ? []
      : [
          makeIssue({
            code: 'publish_interrupted',
            artifact: { type: 'package', name: scope.package },
            ref: { type: 'probe', name: 'l3' },
            message: `Package "${scope.package}" was published to tenant "${scope.tenant}" (its metadata and tables are committed), but ${after.join('; and ')}.`,
            fix: 'Fix the database (free disk space, restore the connection) and publish again: the published metadata stays, and the probes run again.',
          }),
        ];
  try {
    state = await recordSessionRound(ctx, state, scope, probeIssues, input.usage, started);
  } catch (e) {
    after.push(`the build session round could not be recorded (${describeDbError(e)})`);
  }
  const issues = sortIssues([...result.issues, ...probeIssues, ...interrupted()]);
  const sessionCard = state ? cardSession(state) : undefined;
  const card = buildCard({
    issues: result.issues,
    checked: result.checked,
    // Widgets a republish carried over have their result too (that publish's, its issues reported again).
    probes: {
      issues: probeIssues,
      rows: probes.rows,
      widgets: {
        checked: report.checked.widgets + report.skipped.filter((s) => s.plane === 'widgets' && s.carriedFrom !== undefined).length,
        total: report.total.widgets,
      },
    },
    session: sessionCard,
  });
  return {
    outcome: 'published',
    published: true,
    ok: !issues.some((i) => i.severity === 'error'),
    issues,
    checked: result.checked,
    items: result.published,
    retired: result.retired,
    seedApplied: result.seedApplied,
    probes,
    schema: result.schema,
    publishId: result.publishId,
    card,
    session: state?.view ?? null,
  };
}

const zero = () => ({ seeds: 0, views: 0, widgets: 0, objects: 0 });

/**
 * What a republish's probes carry over from the package's previous publish (issue 21: probes scale
 * with what changed; see planCarry): nothing when that publish was not probed, or when this one's
 * seeds were interrupted (which rows landed is not known). Objects whose rows the seeds inserted,
 * changed, deleted or failed to write count as changed.
 */
async function planCarryOver(
  ctx: PlatformContext,
  scope: PackageScope,
  result: Extract<PublishResult, { outcome: 'published' }>,
): Promise<Carried | undefined> {
  if (result.seedApplied.interrupted !== undefined) return undefined;
  const stored = await previousProbeResult(ctx, scope, result.publishId);
  if (!stored) return undefined;
  const report = stored.report as { skipped?: unknown; unavailable?: unknown };
  const seeded = new Set<string>();
  // Rows matched and left as they were (`updated` without `changed`) are no change.
  for (const s of result.seedApplied.seeds) if (s.inserted + (s.changed ?? 0) + (s.deleted ?? 0) + s.failed > 0) seeded.add(s.object);
  for (const e of result.seedApplied.errors) seeded.add(e.object);
  return planCarry({
    graph: result.graph,
    changed: result.changed,
    seededObjects: seeded,
    previous: {
      publishId: stored.publishId,
      issues: stored.issues,
      skipped: Array.isArray(report.skipped) ? (report.skipped as SkippedProbe[]) : [],
      unavailable: typeof report.unavailable === 'object' && report.unavailable !== null ? (report.unavailable as Record<string, string>) : {},
    },
  });
}

/** Records the publish round of the session, decided under its row lock (none once it has stopped); returns the session as it now is. */
async function recordSessionRound(
  ctx: PlatformContext,
  start: SessionState | null,
  scope: PackageScope,
  probeIssues: BuildIssue[],
  usage: ReportedUsage | undefined,
  started: number,
): Promise<SessionState | null> {
  if (!start) return null;
  const errors = probeIssues.filter((i) => i.severity === 'error').map(fingerprint);
  const warnings = probeIssues.filter((i) => i.severity === 'warning').map(fingerprint);
  await recordRound(ctx, scope, start.view.id, (now) => ({
    kind: 'publish',
    draftHash: draftHash([], scope.package),
    errors,
    warnings,
    issues: probeIssues,
    fixes: [],
    decision: decideRound({ kind: 'publish', history: pastOf(now.rounds), errors, warnings, bounds: now.view.bounds, usage: now.view.usage }),
    usage,
    durationMs: Date.now() - started,
    published: true,
  }));
  return loadSession(ctx, scope, start.view.id);
}
