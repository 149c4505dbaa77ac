import type { BuildIssue } from '@bvl/build-issue';
import type { Checked } from '@bvl/verify';
import { type CardView, cardView, type IssuePage, idLookup, pageIssues } from './answer-view.ts';
import type { NextStep } from './decide-round.ts';
import { formatCardLine } from './format-card-text.ts';
import { issueIds } from './issue-ids.ts';
import type { PublishBuildResult } from './run-publish-build.ts';
import type { FixChange, SessionView } from './run-session-store.ts';
import type { VerifyBuildResult } from './run-verify-build.ts';
import type { Detail, ViewOptions } from './view-options.ts';

// The answers every surface sends (HTTP, both MCP transports, the built-in agent): one shape,
// sized for a model. Pure.

/** What is left of a session's bounds. */
export interface SessionRemaining {
  readonly repairRounds: number;
  readonly tokens?: number;
  readonly usd?: number;
  readonly ms?: number;
}

/** A session as an answer carries it: where it stands and what it has left. */
export interface SessionBrief {
  readonly id: string;
  readonly status: SessionView['status'];
  readonly stopReason: SessionView['stopReason'];
  readonly next: NextStep;
  readonly rounds: number;
  readonly repairRounds: number;
  readonly remaining: SessionRemaining;
  readonly usage: SessionView['usage'];
}

/** The session's remaining repair rounds and budgets (a budget it does not have is left out). */
export function remainingOf(s: SessionView): SessionRemaining {
  const left = (limit: number | undefined, used: number) => (limit === undefined ? {} : { v: Math.max(0, limit - used) });
  const tokens = left(s.bounds.budgetTokens, s.usage.tokensIn + s.usage.tokensOut);
  const usd = left(s.bounds.budgetUsd, s.usage.costUsd);
  const ms = left(s.bounds.budgetMs, s.usage.elapsedMs);
  return {
    repairRounds: s.status === 'stopped' ? 0 : Math.max(0, s.bounds.maxRounds - s.repairRounds),
    ...(tokens.v !== undefined ? { tokens: tokens.v } : {}),
    ...(usd.v !== undefined ? { usd: Math.round(usd.v * 1e6) / 1e6 } : {}),
    ...(ms.v !== undefined ? { ms: ms.v } : {}),
  };
}

/** The session as answers carry it. */
export function sessionBrief(s: SessionView): SessionBrief {
  return {
    id: s.id,
    status: s.status,
    stopReason: s.stopReason,
    next: s.next,
    rounds: s.rounds,
    repairRounds: s.repairRounds,
    remaining: remainingOf(s),
    usage: s.usage,
  };
}

/** An earlier issue this round could not check, and the issue that masks it. */
export interface MaskedIssue {
  readonly id: string;
  readonly maskedBy: string;
}

/** The round a verify recorded: how many issues were fixed, persist or are new (those are in the answer), and by id which came back and which are masked. */
export interface RoundBrief {
  readonly round: number;
  readonly fixed: number;
  readonly persisting: number;
  readonly new: number;
  /** Fixed in an earlier round and back now. */
  readonly reappeared: readonly string[];
  /** Not fixed: no longer checkable until the issue named in maskedBy is fixed. */
  readonly masked: readonly MaskedIssue[];
}

/** verify_build's answer. */
export interface VerifyAnswer extends Omit<IssuePage, 'detail'> {
  readonly ok: boolean;
  readonly publishable: boolean;
  readonly next: NextStep;
  readonly why?: string;
  readonly draftVersion: string;
  readonly unchanged: boolean;
  /** The build-health card as one line. */
  readonly line: string;
  /** All issues of the build (before filters). */
  readonly errors: number;
  readonly warnings: number;
  readonly fixes: readonly FixChange[];
  readonly round?: RoundBrief;
  readonly session: SessionBrief | null;
  /** Full detail only: the card, its issues by id. */
  readonly card?: CardView;
  readonly checked?: Checked;
}

const counts = (issues: readonly BuildIssue[]) => {
  const errors = issues.filter((i) => i.severity === 'error').length;
  return { errors, warnings: issues.length - errors };
};

/** verify_build's answer under the caller's view options (see pageIssues); `defaultDetail` is the surface's. */
export function answerVerify(r: VerifyBuildResult, options: ViewOptions, defaultDetail: Detail): VerifyAnswer {
  const ids = issueIds(r.issues);
  const { detail, ...page } = pageIssues(r.issues, ids, r.draftVersion, options, defaultDetail);
  const s = r.session;
  const round: RoundBrief | undefined = r.round && {
    round: r.round.round,
    fixed: r.round.diff.fixed.length,
    persisting: r.round.diff.persisting.length,
    new: r.round.diff.new.length,
    reappeared: r.round.diff.reappeared,
    masked: Object.entries(r.round.maskedBy).map(([id, by]) => ({ id, maskedBy: by })),
  };
  return {
    ok: r.ok,
    publishable: r.publishable,
    next: s?.next ?? (r.publishable ? 'publish' : 'repair'),
    ...(r.why ? { why: r.why } : {}),
    draftVersion: r.draftVersion,
    unchanged: r.unchanged,
    line: formatCardLine(r.card),
    ...counts(r.issues),
    ...page,
    fixes: r.fixes,
    ...(round ? { round } : {}),
    session: s ? sessionBrief(s) : null,
    ...(detail === 'full' ? { card: cardView(r.card, idLookup(r.issues, ids)), checked: r.checked } : {}),
  };
}

/** publish's answer: the issues once (paged as verify's, no cursor: verify_build pages), the card by id. */
export type PublishAnswer = Omit<PublishBuildResult, 'issues' | 'card' | 'session'> &
  Omit<IssuePage, 'detail'> & {
    readonly errors: number;
    readonly warnings: number;
    readonly line?: string;
    readonly card?: CardView;
    readonly session: SessionBrief | null;
  };

/** publish's answer under the view options (detail and limit; a cursor pages verify_build's answers). */
export function answerPublish(r: PublishBuildResult, options: Pick<ViewOptions, 'detail' | 'limit'>, defaultDetail: Detail): PublishAnswer {
  const { issues, card, session, ...rest } = r;
  const ids = issueIds(issues);
  const { detail, more, ...page } = pageIssues(issues, ids, undefined, { detail: options.detail, limit: options.limit }, defaultDetail);
  return {
    ...rest,
    ...counts(issues),
    ...page,
    // A publish answer is not paged: what it leaves out is counted, and verify_build lists it.
    ...(more ? { more: { ...more, next: `${more.errors + more.warnings} more issue(s): verify_build lists them all (with limit and cursor)` } } : {}),
    ...(card ? { line: formatCardLine(card), ...(detail === 'full' ? { card: cardView(card, idLookup(issues, ids)) } : {}) } : {}),
    session: session ? sessionBrief(session) : null,
  };
}
