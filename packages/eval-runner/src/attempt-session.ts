import { type BuildIssue, fingerprint } from '@bvl/build-issue';
import type { BuildCard, FixChange, RoundView, SessionView } from '@bvl/verify-build';

/** Issues kept per round at most (errors first, as the session sorted them); the rest are counted. */
export const MAX_ROUND_ISSUES = 200;
/** Fixer changes kept per round at most; the rest are counted. */
export const MAX_ROUND_FIXES = 100;

/** A round's issue as the attempt keeps it: the issue, and its fingerprint (how rounds tell issues apart). */
export type RoundIssue = BuildIssue & { readonly fingerprint: string };

/** One round of an attempt's build session, kept past the tenant: its issues, how they moved, what the fixer did. */
export interface AttemptRound {
  readonly round: number;
  readonly kind: 'verify' | 'publish';
  readonly errors: number;
  readonly warnings: number;
  /** Fingerprints: gone since the previous round of this kind, never seen before, back after being gone. */
  readonly fixed: readonly string[];
  readonly new: readonly string[];
  readonly reappeared: readonly string[];
  readonly issues: readonly RoundIssue[];
  /** Issues of the round left out past {@link MAX_ROUND_ISSUES}. */
  readonly issuesOmitted: number;
  readonly fixes: readonly FixChange[];
  readonly fixesOmitted: number;
  readonly stopReason: string | null;
  readonly next: string;
  readonly why: string;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
  readonly durationMs: number;
  readonly createdAt: string;
}

/** An attempt's build session as the eval store keeps it (the session's own rows go with the tenant). */
export interface AttemptSession {
  readonly id: string;
  /** The tenant it ran in (dropped since): its transcript is read by tenant and session id (the transcript rows outlive the tenant). */
  readonly tenant: string;
  readonly package: string;
  readonly goal: string;
  readonly status: string;
  readonly stopReason: string | null;
  readonly repairRounds: number;
  readonly maxRounds: number;
  readonly usage: { readonly tokensIn: number; readonly tokensOut: number; readonly costUsd: number; readonly elapsedMs: number };
  readonly createdAt: string;
  readonly publishedAt: string | null;
  readonly rounds: readonly AttemptRound[];
}

/** The build-health card as an attempt keeps it: its layers and counts (the issues are the row's own). */
export type AttemptCard = Omit<BuildCard, 'byArtifact' | 'session'>;

/** A session and its rounds as the attempt keeps them (pure): issues and fixes bounded per round, each issue fingerprinted. */
export function attemptSession(session: SessionView, rounds: readonly RoundView[]): AttemptSession {
  return {
    id: session.id,
    tenant: session.tenant,
    package: session.package,
    goal: session.goal,
    status: session.status,
    stopReason: session.stopReason,
    repairRounds: session.repairRounds,
    maxRounds: session.bounds.maxRounds,
    usage: session.usage,
    createdAt: session.createdAt,
    publishedAt: session.publishedAt,
    rounds: rounds.map((r) => ({
      round: r.round,
      kind: r.kind,
      errors: r.errors.length,
      warnings: r.warnings.length,
      fixed: r.diff.fixed,
      new: r.diff.new,
      reappeared: r.diff.reappeared,
      issues: r.issues.slice(0, MAX_ROUND_ISSUES).map((i) => ({ ...i, fingerprint: fingerprint(i) })),
      issuesOmitted: Math.max(0, r.issues.length - MAX_ROUND_ISSUES),
      fixes: r.fixes.slice(0, MAX_ROUND_FIXES),
      fixesOmitted: Math.max(0, r.fixes.length - MAX_ROUND_FIXES),
      stopReason: r.stopReason,
      next: r.next,
      why: r.why,
      tokensIn: r.tokensIn,
      tokensOut: r.tokensOut,
      costUsd: r.costUsd,
      durationMs: r.durationMs,
      createdAt: r.createdAt,
    })),
  };
}

/** The card without what the row already holds (its issues, the session). */
export function attemptCard(card: BuildCard): AttemptCard {
  const { byArtifact: _issues, session: _session, ...rest } = card;
  return rest;
}

/** How one issue of a round stands against the round before it: new, reappeared (back after being fixed), or persisting. */
export type IssueState = 'new' | 'reappeared' | 'persisting';

/** A round's issues with their state, and the issues it fixed (found in the earlier rounds by fingerprint). */
export function roundStates(
  rounds: readonly AttemptRound[],
  index: number,
): { readonly issues: ReadonlyArray<{ readonly issue: RoundIssue; readonly state: IssueState }>; readonly fixed: ReadonlyArray<RoundIssue | string> } {
  const r = rounds[index]!;
  const isNew = new Set(r.new);
  const back = new Set(r.reappeared);
  const issues = r.issues.map((issue) => ({
    issue,
    state: back.has(issue.fingerprint) ? ('reappeared' as const) : isNew.has(issue.fingerprint) ? ('new' as const) : ('persisting' as const),
  }));
  const earlier = new Map<string, RoundIssue>();
  for (const e of rounds.slice(0, index)) for (const i of e.issues) earlier.set(i.fingerprint, i);
  return { issues, fixed: r.fixed.map((f) => earlier.get(f) ?? f) };
}
