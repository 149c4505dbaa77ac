import { exceededBudget, type SessionBounds, type SessionUsage, type StopReason } from './session-bounds.ts';

/** A verification round (L1+L2 over the drafts) or a publish round (L3 after a publish). */
export type RoundKind = 'verify' | 'publish';

/** What the decision needs of an earlier round: its kind and its issue fingerprints. */
export interface PastRound {
  readonly kind: RoundKind;
  /** Fingerprints of the round's blocking issues (L1+L2 errors of a verify round, L3 errors of a publish round). */
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  /** Fingerprints of earlier issues that this round could not check (masked by another issue): still there, unseen. */
  readonly masked?: readonly string[] | undefined;
}

/** How this round's issues relate to the previous round of the same kind, by fingerprint. */
export interface RoundDiff {
  /** In the previous round, gone now. */
  readonly fixed: string[];
  /** In the previous round and now. */
  readonly persisting: string[];
  /** Never seen in an earlier round of this kind. */
  readonly new: string[];
  /** Seen in an earlier round, absent from the previous one, back now. */
  readonly reappeared: string[];
  /** In the previous round, not checkable now: another issue masks it (never counted as fixed). */
  readonly masked: string[];
}

/** What the agent should do next. */
export type NextStep = 'repair' | 'publish' | 'stop';

/** The decision for one round. */
export interface RoundDecision {
  readonly diff: RoundDiff;
  /** Set when the session stops with this round. */
  readonly stop?: StopReason;
  /** Why, in words an agent can act on. */
  readonly why: string;
  readonly next: NextStep;
  /** Repair rounds used, this one included. */
  readonly repairRounds: number;
}

/** Everything one decision reads; no I/O, no clock. */
export interface RoundInput {
  readonly kind: RoundKind;
  readonly history: readonly PastRound[];
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  readonly bounds: SessionBounds;
  readonly usage: SessionUsage;
  readonly cancelled?: boolean;
  /** Fingerprints of earlier issues that this round's issues mask (see mask-issues.ts). */
  readonly masked?: readonly string[] | undefined;
  /** How to name an issue in a `why` (fingerprint → e.g. `unknown_measure on widget "w" of dashboard "d"`); unnamed: its fingerprint. */
  readonly labels?: Readonly<Record<string, string>> | undefined;
}

/** Most issues a `why` names one by one (the rest are counted). */
export const MAX_WHY_ISSUES = 5;

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

const seen = (r: PastRound) => [...r.errors, ...r.warnings, ...(r.masked ?? [])];

/**
 * Fixed / persisting / new / reappeared / masked against the earlier rounds of the same kind
 * (errors and warnings). An issue a round could not check (`masked`) was not fixed: it is
 * `masked` while hidden, and `persisting` when it shows again.
 */
export function diffRound(history: readonly PastRound[], kind: RoundKind, now: readonly string[], masked: readonly string[] = []): RoundDiff {
  const same = history.filter((r) => r.kind === kind);
  const prev = new Set(same.length ? seen(same[same.length - 1]!) : []);
  const earlier = new Set(same.slice(0, -1).flatMap(seen));
  const cur = new Set(now);
  const hidden = new Set(masked.filter((f) => !cur.has(f)));
  return {
    fixed: sorted([...prev].filter((f) => !cur.has(f) && !hidden.has(f))),
    persisting: sorted([...cur].filter((f) => prev.has(f))),
    new: sorted([...cur].filter((f) => !prev.has(f) && !earlier.has(f))),
    reappeared: sorted([...cur].filter((f) => !prev.has(f) && earlier.has(f))),
    masked: sorted(hidden),
  };
}

/** Repair rounds: every verify round after the session's first. */
export function repairRoundsOf(history: readonly PastRound[]): number {
  return Math.max(0, history.filter((r) => r.kind === 'verify').length - 1);
}

/**
 * The build session's state machine: given the rounds so far and this round's blocking issues,
 * decide whether the session goes on and what the agent does next. In order: a cancelled session
 * stops; a publish round with no L3 error is `clean`; a verify round with no L1/L2 error goes on
 * to publish (even when its turn spent the budget: the overrun is in `why`); a spent budget stops; a blocking fingerprint that an earlier round fixed is back
 * (`oscillation`); the error set has not shrunk for `noProgressRounds` rounds (`no_progress`); the
 * repair rounds are used up (`max_rounds`); else the agent repairs. Pure and total.
 */
export function decideRound(input: RoundInput): RoundDecision {
  const { kind, history, errors, warnings, bounds, usage } = input;
  const errorDiff = diffRound(
    history.map((r) => ({ ...r, warnings: [] })),
    kind,
    errors,
    input.masked,
  );
  const diff = diffRound(history, kind, [...errors, ...warnings], input.masked);
  const repairRounds = repairRoundsOf(history) + (kind === 'verify' && history.some((r) => r.kind === 'verify') ? 1 : 0);
  const decided = (stop: StopReason | undefined, next: NextStep, why: string): RoundDecision => ({ diff, ...(stop ? { stop } : {}), next, why, repairRounds });

  if (input.cancelled) return decided('cancelled', 'stop', 'the session was cancelled');
  if (kind === 'publish' && errors.length === 0) return decided('clean', 'stop', 'published, and the runtime probes found no error');
  const spent = exceededBudget(bounds, usage);
  // The turn that made the build clean is not thrown away for what it cost: it publishes, and the overrun is said.
  if (kind === 'verify' && errors.length === 0)
    return decided(
      undefined,
      'publish',
      spent ? `no L1/L2 error: publish the build (over budget: ${spent}; no repair round is left after this)` : 'no L1/L2 error: publish the build',
    );
  if (spent) return decided('budget', 'stop', `the session's budget is spent (${spent})`);
  if (errorDiff.reappeared.length > 0) return decided('oscillation', 'stop', oscillationWhy(history, kind, errorDiff.reappeared, input.labels ?? {}));
  if (repairRounds >= bounds.maxRounds)
    return decided('max_rounds', 'stop', `all ${bounds.maxRounds} repair round(s) are used and ${errors.length} error(s) remain`);
  // A masked error is not progress: it still counts (every code MASKS hides is an error).
  const same = [...history.filter((r) => r.kind === kind).map((r) => r.errors.length + (r.masked?.length ?? 0)), errors.length + diff.masked.length];
  const k = bounds.noProgressRounds;
  if (same.length > k && same.slice(-k - 1).every((n, i, xs) => i === 0 || n >= xs[i - 1]!))
    return decided('no_progress', 'stop', `the error count has not gone down for ${k} round(s) (${same.slice(-k - 1).join(' → ')})`);
  return decided(undefined, 'repair', `${errors.length} error(s) to repair; ${bounds.maxRounds - repairRounds} repair round(s) left`);
}

/**
 * The `why` of an oscillation: each issue that is back, by name, with the round it was last seen
 * in, the round that fixed it and this round (round numbers as recorded, from 0).
 */
export function oscillationWhy(
  history: readonly PastRound[],
  kind: RoundKind,
  reappeared: readonly string[],
  labels: Readonly<Record<string, string>>,
): string {
  const now = history.length;
  const parts = reappeared.slice(0, MAX_WHY_ISSUES).map((fp) => {
    let seenIn = -1;
    for (let i = history.length - 1; i >= 0; i--)
      if (history[i]!.kind === kind && history[i]!.errors.includes(fp)) {
        seenIn = i;
        break;
      }
    const fixedIn = history.findIndex((r, i) => i > seenIn && r.kind === kind && !r.errors.includes(fp));
    return `${labels[fp] ?? fp} (in round ${seenIn}, fixed in round ${fixedIn}, back in round ${now})`;
  });
  const rest = reappeared.length - parts.length;
  return `${reappeared.length} issue(s) an earlier round fixed are back, so the repairs undo each other: ${parts.join('; ')}${rest > 0 ? `; and ${rest} more` : ''}`;
}
