import { type BuildIssue, fingerprint, sortIssues } from '@bvl/build-issue';
import type { ArtifactSet } from '@bvl/metadata';
import { latestProbeResult, overlayOf, type PackageScope, type PlatformContext, readOverlayRows, type StoredProbeResult } from '@bvl/platform';
import { type Checked, type Verification, verify } from '@bvl/verify';
import { type BuildCard, buildCard, type CardProbes, type CardRound } from './build-card.ts';
import { decideRound, type RoundDiff } from './decide-round.ts';
import { draftHash } from './draft-hash.ts';
import { maskerOf } from './mask-issues.ts';
import { type FixReport, fixDrafts } from './run-fix-drafts.ts';
import {
  addUsage,
  type FixChange,
  lastRoundIssues,
  loadSession,
  type ReportedUsage,
  type RoundView,
  recordRound,
  type SessionState,
  type SessionView,
} from './run-session-store.ts';

/** What verify_build is asked. */
export interface VerifyBuildInput extends PackageScope {
  /** A build session to record the round in (its bounds decide whether the loop goes on). */
  readonly session?: string | undefined;
  /** Tokens and cost the agent spent since its previous call (counted against the session's budget). */
  readonly usage?: ReportedUsage | undefined;
  /** Apply safe patches as drafts before verifying (default: true in a session, false without one). */
  readonly fix?: boolean | undefined;
  /**
   * Runs L1 + L2 (default: `verify` here, on this thread). A service passes one that runs a large
   * overlay on a worker thread, so one tenant's huge verify does not stall every other request.
   */
  readonly verify?: ((published: ArtifactSet, drafts: ArtifactSet) => Promise<Pick<Verification, 'issues' | 'checked' | 'publishable'>>) | undefined;
}

/** What verify_build answers: every surface (CLI, HTTP, MCP, the agent) returns this shape. */
export interface VerifyBuildResult {
  /** No error in any layer (L1, L2, and the latest L3 of the published package). */
  readonly ok: boolean;
  /** No L1/L2 error: the gate would let a publish through. */
  readonly publishable: boolean;
  readonly issues: BuildIssue[];
  readonly checked: Checked;
  readonly card: BuildCard;
  /** The session after this call, or null without one. */
  readonly session: SessionView | null;
  /** What the deterministic fixer changed before verifying (empty when it did not run). */
  readonly fixes: FixChange[];
  /** The draft set had not changed since the session's last round: no round was spent. */
  readonly unchanged: boolean;
  /** The identity of the graded draft set (its hash): patch ids and cursors are bound to it. */
  readonly draftVersion: string;
  /** Why the session's last round decided what it did (with a session). */
  readonly why?: string | undefined;
  /** The round this call recorded: how its issues moved since the previous one; `maskedBy` names, per masked fingerprint, the issue that masks it. */
  readonly round?: { readonly round: number; readonly diff: RoundDiff; readonly maskedBy: Readonly<Record<string, string>> } | undefined;
}

/** Test hooks of {@link verifyBuild}. */
export interface VerifyBuildHooks {
  /** Awaited after the verification, before its round is recorded: tests cancel the session here. */
  readonly beforeRound?: () => Promise<void>;
}

/** The stored L3 result as the card reads it. */
export function cardProbes(result: StoredProbeResult | undefined): CardProbes | undefined {
  if (!result) return undefined;
  const r = result.report as { rows?: number; checked?: { widgets?: number }; total?: { widgets?: number } };
  return { issues: result.issues, rows: r.rows ?? 0, widgets: { checked: r.checked?.widgets ?? 0, total: r.total?.widgets ?? 0 } };
}

/** The session's rounds as the card shows them. */
export function cardSession(state: SessionState): NonNullable<BuildCard['session']> {
  const { view, rounds } = state;
  return {
    id: view.id,
    goal: view.goal,
    status: view.status,
    stopReason: view.stopReason ?? undefined,
    rounds: rounds.map(
      (r): CardRound => ({
        round: r.round,
        kind: r.kind,
        errors: r.errors.length,
        warnings: r.warnings.length,
        fixed: r.diff.fixed.length,
        new: r.diff.new.length,
        reappeared: r.diff.reappeared.length,
        autoFixed: r.fixes.length,
        stopReason: r.stopReason ?? undefined,
      }),
    ),
  };
}

/** How a `why` names each issue: its code, artifact and member (see decideRound's `labels`). */
export function issueLabels(issues: readonly BuildIssue[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const i of issues) {
    const member = i.ref?.member ? ` (${i.ref.type} ${JSON.stringify(i.ref.name)}.${i.ref.member})` : '';
    labels[fingerprint(i)] = `${i.code} on ${i.artifact.type} ${JSON.stringify(i.artifact.name)}${i.path ? ` at ${i.path}` : ''}${member}`;
  }
  return labels;
}

/** What the decision reads of the recorded rounds. */
export const pastOf = (rounds: readonly RoundView[]) => rounds.map((r) => ({ kind: r.kind, errors: r.errors, warnings: r.warnings, masked: r.diff.masked }));

/**
 * Issues of the previous round (and those it already could not check) that this round cannot
 * check: gone from `current` because an issue of `current` masks them, not because they were fixed.
 */
export function maskedSince(
  previous: { readonly issues: readonly BuildIssue[]; readonly masked: readonly BuildIssue[] },
  current: readonly BuildIssue[],
): { issues: BuildIssue[]; maskedBy: Record<string, string> } {
  const now = new Set(current.map(fingerprint));
  const issues: BuildIssue[] = [];
  const maskedBy: Record<string, string> = {};
  for (const i of [...previous.issues, ...previous.masked]) {
    const fp = fingerprint(i);
    if (now.has(fp) || maskedBy[fp] !== undefined) continue;
    const masker = maskerOf(i, current);
    if (!masker) continue;
    maskedBy[fp] = fingerprint(masker);
    issues.push(i);
  }
  return { issues, maskedBy };
}

/**
 * verify_build: L1 + L2 over the store's overlay (published ⊕ the package's drafts) through
 * `verify` — the function `bvl verify` and the publish gate run — plus the latest L3 result of the
 * published package. In a session: the deterministic fixer runs first (safe patches only, reported
 * in `fixes`), a changed draft set records a round and the session's bounds decide whether the
 * loop goes on (`session.next`, `session.stopReason`); an unchanged draft set spends no round; a
 * stopped session records nothing more (a verify in it still answers what remains). The round is
 * decided under the session's row lock against the rounds recorded by then, so parallel verifies
 * in one session never pass its bounds, and one that a cancel overtakes records nothing.
 */
export async function verifyBuild(ctx: PlatformContext, input: VerifyBuildInput, hooks: VerifyBuildHooks = {}): Promise<VerifyBuildResult> {
  const started = Date.now();
  const scope = { tenant: input.tenant, package: input.package };
  let state = input.session !== undefined ? await loadSession(ctx, scope, input.session) : null;
  if (state) await addUsage(ctx, state.view.id, input.usage);
  let fixReport: FixReport | undefined;
  if ((input.fix ?? state !== null) && state?.view.status !== 'stopped') fixReport = await fixDrafts(ctx, scope);

  const rows = await readOverlayRows(ctx.db, scope.tenant, scope.package);
  const overlay = overlayOf(rows, scope.package);
  const verification = input.verify ? await input.verify(overlay.published, overlay.drafts) : verify(overlay.published, overlay.drafts);
  const probes = await latestProbeResult(ctx, scope);
  const issues = sortIssues([...verification.issues, ...(probes?.issues ?? [])]);
  let unchanged = false;
  const hash = draftHash(rows, scope.package);
  let round: VerifyBuildResult['round'];

  if (state) {
    const fixes = fixReport?.changes ?? [];
    const unchangedSince = (s: SessionState) => s.rounds[s.rounds.length - 1]?.draftHash === hash && fixes.length === 0;
    // What the last verify round held, read before the lock (masking is advisory: it names why an issue left).
    const previous = await lastRoundIssues(ctx, state.view.id, 'verify');
    await hooks.beforeRound?.();
    let decided: { diff: RoundDiff; maskedBy: Record<string, string>; round: number } | undefined;
    // Decided against the session as it is under its row lock: parallel verifies count one after the other.
    const { locked, recorded } = await recordRound(ctx, scope, state.view.id, (now) => {
      if (unchangedSince(now)) return undefined;
      const blocking = verification.issues.filter((i) => i.severity === 'error').map(fingerprint);
      const warnings = verification.issues.filter((i) => i.severity === 'warning').map(fingerprint);
      const masked = maskedSince(previous, verification.issues);
      const decision = decideRound({
        labels: issueLabels(verification.issues),
        masked: Object.keys(masked.maskedBy),
        kind: 'verify',
        history: pastOf(now.rounds),
        errors: blocking,
        warnings,
        bounds: now.view.bounds,
        // Read after this call's usage was added: every caller's spend counts.
        usage: now.view.usage,
      });
      decided = { round: now.view.rounds, diff: decision.diff, maskedBy: masked.maskedBy };
      return {
        kind: 'verify',
        draftHash: hash,
        errors: blocking,
        warnings,
        issues: verification.issues,
        fixes,
        decision,
        usage: input.usage,
        durationMs: Date.now() - started,
        maskedIssues: masked.issues,
      };
    });
    unchanged = unchangedSince(locked);
    if (recorded && decided) round = decided;
    state = await loadSession(ctx, scope, state.view.id);
  }
  const card = buildCard({
    issues: verification.issues,
    checked: verification.checked,
    probes: cardProbes(probes),
    session: state ? cardSession(state) : undefined,
  });
  return {
    ok: !issues.some((i) => i.severity === 'error'),
    publishable: verification.publishable,
    issues,
    checked: verification.checked,
    card,
    session: state?.view ?? null,
    fixes: fixReport?.changes ?? [],
    unchanged,
    draftVersion: hash,
    ...(state?.rounds.length ? { why: state.rounds[state.rounds.length - 1]!.why } : {}),
    ...(round ? { round } : {}),
  };
}
