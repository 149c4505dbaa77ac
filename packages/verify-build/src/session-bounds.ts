import { z } from 'zod';

/** Why a build session stopped. */
export const STOP_REASONS = ['clean', 'max_rounds', 'oscillation', 'no_progress', 'budget', 'cancelled', 'endpoint_error', 'expired'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** Default repair rounds after the first verification (ADR-0038's "at most 2", enforced here). */
export const DEFAULT_MAX_ROUNDS = 2;
/** Default rounds in a row whose error set is not smaller before a session stops for no progress. */
export const DEFAULT_NO_PROGRESS_ROUNDS = 2;
/** The most repair rounds a session may be configured with. */
export const MAX_MAX_ROUNDS = 50;
/** How long an open session may go untouched (no verify, publish or usage report) before the server closes it as `expired`. */
export const DEFAULT_IDLE_MS = 60 * 60_000;
/** The longest idle limit a session may be given (a day). */
export const MAX_IDLE_MS = 24 * 60 * 60_000;

/** A session's bounds, as given (validated) when it is created; absent budgets are unbounded. */
export const SessionBoundsSchema = z.strictObject({
  maxRounds: z.number().int().min(0).max(MAX_MAX_ROUNDS).default(DEFAULT_MAX_ROUNDS),
  noProgressRounds: z.number().int().min(1).max(MAX_MAX_ROUNDS).default(DEFAULT_NO_PROGRESS_ROUNDS),
  budgetMs: z.number().int().positive().optional(),
  budgetTokens: z.number().int().positive().optional(),
  budgetUsd: z.number().positive().optional(),
  /** Idle limit: an open session untouched this long is closed as `expired` (absent: {@link DEFAULT_IDLE_MS}). */
  idleMs: z.number().int().positive().max(MAX_IDLE_MS).optional(),
});
export type SessionBounds = z.output<typeof SessionBoundsSchema>;

/** What a session has used so far. */
export interface SessionUsage {
  readonly elapsedMs: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
}

/** The first budget the usage exceeds, described for the agent, or undefined. */
export function exceededBudget(bounds: SessionBounds, usage: SessionUsage): string | undefined {
  if (bounds.budgetMs !== undefined && usage.elapsedMs > bounds.budgetMs) return `wall clock ${usage.elapsedMs} ms > ${bounds.budgetMs} ms`;
  const tokens = usage.tokensIn + usage.tokensOut;
  if (bounds.budgetTokens !== undefined && tokens > bounds.budgetTokens) return `tokens ${tokens} > ${bounds.budgetTokens}`;
  if (bounds.budgetUsd !== undefined && usage.costUsd > bounds.budgetUsd) return `cost $${usage.costUsd.toFixed(4)} > $${bounds.budgetUsd}`;
  return undefined;
}
