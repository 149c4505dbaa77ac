import { z } from 'zod';
import { DEFAULT_IDLE_MS, DEFAULT_MAX_ROUNDS, MAX_IDLE_MS, MAX_MAX_ROUNDS, type SessionBounds } from './session-bounds.ts';

/** The bounds a policy sets (defaults or maximums); absent: not set at this level. */
export const PolicyBoundsSchema = z.strictObject({
  maxRounds: z.number().int().min(0).max(MAX_MAX_ROUNDS).optional(),
  budgetMs: z.number().int().positive().optional(),
  budgetTokens: z.number().int().positive().optional(),
  budgetUsd: z.number().positive().optional(),
  idleMs: z.number().int().positive().max(MAX_IDLE_MS).optional(),
});
export type PolicyBounds = z.output<typeof PolicyBoundsSchema>;

/** The longest window a package's sessions may share (a week). */
export const MAX_WINDOW_MS = 7 * 24 * 60 * 60_000;

/**
 * A tenant's server policy, as stored and as `PUT …/policy` takes it. Every field is optional:
 * what a tenant's policy leaves out comes from the server's default policy.
 */
export const TenantPolicySchema = z.strictObject({
  /** verify_build and publish over HTTP and MCP need a session (`session`); without one they are refused. */
  requireSession: z.boolean().optional(),
  /** What a session gets for a bound its creator did not ask for. */
  defaults: PolicyBoundsSchema.optional(),
  /** What no session gets more of: asking more gets the maximum (and the answer says so). */
  maximums: PolicyBoundsSchema.optional(),
  /**
   * The window a package's sessions share: the rounds and spend of every session of the package
   * opened within it (open ones count their whole bounds, stopped ones what they used; a clean one
   * nothing) count against one maximum, so a stopped session cannot be replaced by a fresh one.
   */
  windowMs: z.number().int().min(0).max(MAX_WINDOW_MS).optional(),
});
export type TenantPolicy = z.output<typeof TenantPolicySchema>;

/** A policy with every field set: what the server enforces for a tenant. */
export interface EffectivePolicy {
  readonly requireSession: boolean;
  readonly defaults: PolicyBounds;
  readonly maximums: PolicyBounds;
  readonly windowMs: number;
}

/**
 * The built-in default policy: sessions optional (`bvl serve` turns them on), 2 repair rounds by
 * default and 50 at most, an hour's idle limit, and a one-hour window per package. No token, USD or
 * wall-clock maximum: a tenant's policy (or the server's, BVL_POLICY) sets those.
 */
export const DEFAULT_POLICY: EffectivePolicy = {
  requireSession: false,
  defaults: { maxRounds: DEFAULT_MAX_ROUNDS, idleMs: DEFAULT_IDLE_MS },
  maximums: { maxRounds: MAX_MAX_ROUNDS, idleMs: MAX_IDLE_MS },
  windowMs: 60 * 60_000,
};

/** The policy in force: the tenant's fields over the server's (each bound on its own). */
export function effectivePolicy(tenant: TenantPolicy | undefined, server: EffectivePolicy = DEFAULT_POLICY): EffectivePolicy {
  return {
    requireSession: tenant?.requireSession ?? server.requireSession,
    defaults: { ...server.defaults, ...tenant?.defaults },
    maximums: { ...server.maximums, ...tenant?.maximums },
    windowMs: tenant?.windowMs ?? server.windowMs,
  };
}

/** The bounds the window rule counts, per package. */
export const WINDOW_BOUNDS = ['rounds', 'tokens', 'usd'] as const;

/** What a package's sessions in the window hold: verify rounds, tokens and USD (open ones: their bounds; stopped: their use). */
export interface WindowUse {
  readonly rounds: number;
  readonly tokens: number;
  readonly usd: number;
  /** When the oldest counted session leaves the window (ISO), when any is counted. */
  readonly freesAt?: string | undefined;
}

/** What a session's creator asked for and what it gets. */
export type BoundsDecision =
  | { readonly ok: true; readonly bounds: Partial<SessionBounds>; readonly capped: string[] }
  | { readonly ok: false; readonly why: string; readonly retryAt?: string | undefined };

const minDefined = (...xs: (number | undefined)[]) => {
  const d = xs.filter((x): x is number => x !== undefined);
  return d.length ? Math.min(...d) : undefined;
};

/**
 * The bounds a new session gets under a policy, given what its creator asked and what the
 * package's sessions in the window hold. Pure. A bound asked above the maximum gets the maximum;
 * one not asked gets the default (at most the maximum); the window leaves `maximum − used` rounds,
 * tokens and USD for the package, so the new session gets at most that, and none (refused) when
 * nothing is left. Each cap is said in `capped`, in words.
 */
export function decideBounds(asked: Partial<SessionBounds>, policy: EffectivePolicy, used: WindowUse): BoundsDecision {
  const capped: string[] = [];
  const out: Record<string, number | undefined> = {};
  const { defaults: d, maximums: m } = policy;
  for (const key of ['maxRounds', 'budgetMs', 'budgetTokens', 'budgetUsd', 'idleMs'] as const) {
    const want = asked[key];
    const max = m[key];
    if (want !== undefined && max !== undefined && want > max) capped.push(`${key}: asked ${want}, the tenant's maximum is ${max}`);
    out[key] = want !== undefined ? minDefined(want, max) : minDefined(d[key] ?? max, max);
  }
  const windowMin = Math.round(policy.windowMs / 60_000);
  const over = (what: string, max: number, use: number) =>
    `package sessions of the last ${windowMin} min hold ${use} of the ${max} ${what} the tenant allows a package in that window (open sessions count their whole bounds, stopped ones what they used)`;
  if (policy.windowMs > 0) {
    const refuse = (why: string): BoundsDecision => ({ ok: false, why, ...(used.freesAt ? { retryAt: used.freesAt } : {}) });
    if (m.maxRounds !== undefined) {
      // Verify rounds: a session's round 0 counts too, or a stream of fresh sessions would each verify for free.
      const left = m.maxRounds + 1 - used.rounds;
      if (left < 1) return refuse(over('verify rounds', m.maxRounds + 1, used.rounds));
      if ((out.maxRounds ?? DEFAULT_MAX_ROUNDS) > left - 1) {
        capped.push(`maxRounds: capped at ${left - 1}: ${over('verify rounds', m.maxRounds + 1, used.rounds)}`);
        out.maxRounds = left - 1;
      }
    }
    if (m.budgetTokens !== undefined) {
      const left = m.budgetTokens - used.tokens;
      if (left < 1) return refuse(over('tokens', m.budgetTokens, used.tokens));
      if ((out.budgetTokens ?? Number.POSITIVE_INFINITY) > left) {
        capped.push(`budgetTokens: capped at ${left}: ${over('tokens', m.budgetTokens, used.tokens)}`);
        out.budgetTokens = left;
      }
    }
    if (m.budgetUsd !== undefined) {
      const left = Math.round((m.budgetUsd - used.usd) * 1e6) / 1e6;
      if (left <= 0) return refuse(over('USD', m.budgetUsd, used.usd));
      if ((out.budgetUsd ?? Number.POSITIVE_INFINITY) > left) {
        capped.push(`budgetUsd: capped at ${left}: ${over('USD', m.budgetUsd, used.usd)}`);
        out.budgetUsd = left;
      }
    }
  }
  const bounds: Partial<SessionBounds> = { ...asked };
  for (const [k, v] of Object.entries(out)) if (v !== undefined) (bounds as Record<string, number>)[k] = v;
  return { ok: true, bounds, capped };
}

/**
 * How a new policy is looser than the old one, in words (empty: it is not): sessions no longer
 * required, a maximum raised or removed, a shorter window. A tenant's own token may only tighten
 * its policy; loosening is the operator's (`bvl policy set`).
 */
export function loosenings(before: EffectivePolicy, after: EffectivePolicy): string[] {
  const out: string[] = [];
  if (before.requireSession && !after.requireSession) out.push('requireSession: true → false');
  for (const key of ['maxRounds', 'budgetMs', 'budgetTokens', 'budgetUsd', 'idleMs'] as const) {
    const a = before.maximums[key];
    const b = after.maximums[key];
    if (a !== undefined && (b === undefined || b > a)) out.push(`maximums.${key}: ${a} → ${b ?? 'none'}`);
  }
  if (after.windowMs < before.windowMs) out.push(`windowMs: ${before.windowMs} → ${after.windowMs}`);
  return out;
}
