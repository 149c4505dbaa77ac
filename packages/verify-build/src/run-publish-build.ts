import { type BuildIssue, fingerprint, sortIssues } from '@bvl/build-issue';
import {
  createProbeEngine,
  type PackageScope,
  type PlatformContext,
  type PublishedItem,
  publishPackage,
  type RetiredItem,
  recordProbeResult,
  type SeedApplied,
  withPackageLock,
} from '@bvl/platform';
import { type ProbeEngine, type ProbeReport, runProbes } from '@bvl/runtime-probes';
import type { Checked } from '@bvl/verify';
import { type BuildCard, buildCard } from './build-card.ts';
import { decideRound } from './decide-round.ts';
import { draftHash } from './draft-hash.ts';
import { addUsage, loadSession, type ReportedUsage, recordRound, type SessionView } from './run-session-store.ts';
import { cardSession, pastOf, withUsage } from './run-verify-build.ts';

/** What a gated publish is asked. */
export interface PublishBuildInput extends PackageScope {
  readonly session?: string | undefined;
  readonly usage?: ReportedUsage | undefined;
  /** Let tombstones drop a retired object's table / delete a retired seed's rows. */
  readonly dropData?: boolean | undefined;
  /** Seeds whose `env` list lacks this are not applied (default `dev`). */
  readonly env?: string | undefined;
  /**
   * Runs under the package lock right before the publish, on the pinned connection: `bvl publish`
   * replaces the package's drafts with its files here, so a concurrent run cannot publish them.
   */
  readonly prepare?: ((pinned: PlatformContext) => Promise<void>) | undefined;
  /** Told as each long step starts (a CLI shows progress with it). */
  readonly onStep?: ((step: 'publish' | 'probe') => void) | undefined;
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
  readonly error?: string;
  readonly card?: BuildCard;
  readonly session: SessionView | null;
}

/** Rows the seeds wrote or found in place. */
const rowsOf = (s: SeedApplied): number => s.inserted + s.updated + s.skipped;

/**
 * The gate and what follows it: publishes the package's drafts through `publishPackage` (which
 * refuses while L1 or L2 has an error, on the exact graph it would promote, inside the package
 * lock), then runs the L3 probes on the live tables, stores their result against the publish, and
 * records a publish round in the session: no L3 error ends the session `clean`; L3 errors re-open
 * it for repair rounds within the same bounds. Never reports as published what was not.
 */
export async function publishBuild(ctx: PlatformContext, input: PublishBuildInput): Promise<PublishBuildResult> {
  const started = Date.now();
  const scope = { tenant: input.tenant, package: input.package };
  let state = input.session !== undefined ? await loadSession(ctx, scope, input.session) : null;
  if (state) await addUsage(ctx, state.view.id, input.usage);
  const options = { ...(input.dropData ? { dropData: true } : {}), ...(input.env ? { env: input.env } : {}) };
  input.onStep?.('publish');
  const result = await withPackageLock(ctx, scope, async (pinned) => {
    await input.prepare?.(pinned);
    return publishPackage(pinned, scope, options);
  });
  if (result.outcome !== 'published') {
    const issues = result.outcome === 'refused' ? result.issues : [];
    return {
      outcome: result.outcome,
      published: false,
      ok: result.outcome === 'nothing_to_publish',
      issues,
      ...(result.outcome === 'refused' ? { checked: result.checked, card: buildCard({ issues, checked: result.checked }) } : {}),
      ...(result.outcome === 'failed' ? { error: result.error } : {}),
      schema: result.schema,
      session: state?.view ?? null,
    };
  }
  // The platform's engine is checked against runtime-probes' port here, where both meet.
  input.onStep?.('probe');
  const engine: ProbeEngine = createProbeEngine(ctx, { tenant: scope.tenant, graph: result.graph });
  const { issues: probeIssues, ...report } = await runProbes({
    engine,
    graph: result.graph,
    seedApplied: result.seedApplied,
    ...(input.env ? { env: input.env } : {}),
  });
  const probes: ProbeSummary = { ...report, rows: rowsOf(result.seedApplied) };
  await recordProbeResult(ctx, scope, result.publishId, { issues: probeIssues, report: probes });
  const issues = sortIssues([...result.issues, ...probeIssues]);

  if (state && state.view.status === 'open') {
    const errors = probeIssues.filter((i) => i.severity === 'error').map(fingerprint);
    const warnings = probeIssues.filter((i) => i.severity === 'warning').map(fingerprint);
    const decision = decideRound({
      kind: 'publish',
      history: pastOf(state.rounds),
      errors,
      warnings,
      bounds: state.view.bounds,
      usage: withUsage(state.view, input.usage),
    });
    await recordRound(ctx, state.view, {
      kind: 'publish',
      draftHash: draftHash([], scope.package),
      errors,
      warnings,
      issues: probeIssues,
      fixes: [],
      decision,
      usage: input.usage,
      durationMs: Date.now() - started,
      published: true,
    });
  }
  if (state) state = await loadSession(ctx, scope, state.view.id);
  const card = buildCard({
    issues: result.issues,
    checked: result.checked,
    probes: { issues: probeIssues, rows: probes.rows, widgets: { checked: report.checked.widgets, total: report.total.widgets } },
    session: state ? cardSession(state) : undefined,
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
    card,
    session: state?.view ?? null,
  };
}
