import type { SessionBounds } from '@bvl/verify-build';
import type { AgentClient } from './agent-client.ts';

/** Model turns a round may take before bvl verifies on the agent's behalf. */
export const DEFAULT_MAX_TURNS_PER_ROUND = 24;
/** The most turns per round a build may be given. */
export const MAX_TURNS_PER_ROUND = 200;
/** Interventions in a row that change nothing before the agent is stopped for `no_progress`. */
export const MAX_IDLE_INTERVENTIONS = 2;

/** The session's bounds plus the agent's own: model turns per round. */
export interface BuildBounds extends Partial<SessionBounds> {
  readonly maxTurnsPerRound?: number | undefined;
}

/** A build that cannot start: a bound out of range, a USD budget without a price. */
export class BuildSetupError extends Error {
  override readonly name = 'BuildSetupError';
}

/** The agent's own bound and the session's, checked: a bad bound, or a USD budget the price table cannot measure, throws {@link BuildSetupError}. */
export function splitBounds(
  bounds: BuildBounds | undefined,
  client: Pick<AgentClient, 'price' | 'model'>,
): { readonly maxTurnsPerRound: number; readonly sessionBounds: Partial<SessionBounds> } {
  const { maxTurnsPerRound = DEFAULT_MAX_TURNS_PER_ROUND, ...sessionBounds } = bounds ?? {};
  if (!Number.isInteger(maxTurnsPerRound) || maxTurnsPerRound < 1 || maxTurnsPerRound > MAX_TURNS_PER_ROUND)
    throw new BuildSetupError(`maxTurnsPerRound must be an integer from 1 to ${MAX_TURNS_PER_ROUND} (got ${maxTurnsPerRound})`);
  if (sessionBounds.budgetUsd !== undefined && !client.price)
    throw new BuildSetupError(`a USD budget needs the price of model ${JSON.stringify(client.model)}: add it to BVL_PRICES (USD per million tokens)`);
  return { maxTurnsPerRound, sessionBounds };
}

/** The fewest completion tokens a model call is made with: less cannot hold a tool call, so the budget counts as spent. */
export const MIN_CALL_TOKENS = 64;

/** What the next model call may spend, reserved before it is made. */
export type CallReservation = { readonly ok: true; readonly maxTokens?: number | undefined } | { readonly ok: false; readonly spent: string };

/**
 * The completion tokens the next call may use (its `max_tokens`), from what the session's token
 * and USD budgets have left after what was spent and the prompt about to be sent (an estimate: the
 * endpoint counts it exactly afterwards). No budget: no cap. Less than {@link MIN_CALL_TOKENS}
 * left: not ok, the budget is spent before the call is made. Pure.
 */
export function reserveCall(
  bounds: Pick<SessionBounds, 'budgetTokens' | 'budgetUsd'>,
  spent: { readonly tokensIn: number; readonly tokensOut: number; readonly costUsd: number },
  promptTokens: number,
  price: AgentClient['price'],
): CallReservation {
  const caps: number[] = [];
  const why: string[] = [];
  if (bounds.budgetTokens !== undefined) {
    const left = bounds.budgetTokens - spent.tokensIn - spent.tokensOut - promptTokens;
    caps.push(left);
    why.push(`tokens: ${spent.tokensIn + spent.tokensOut} used of ${bounds.budgetTokens}, the next prompt is ~${promptTokens}`);
  }
  if (bounds.budgetUsd !== undefined && price && price.output > 0) {
    const leftUsd = bounds.budgetUsd - spent.costUsd - (promptTokens * price.input) / 1e6;
    caps.push(Math.floor((leftUsd * 1e6) / price.output));
    why.push(`cost: $${spent.costUsd.toFixed(4)} used of $${bounds.budgetUsd}, the next prompt costs ~$${((promptTokens * price.input) / 1e6).toFixed(4)}`);
  }
  if (caps.length === 0) return { ok: true };
  const maxTokens = Math.min(...caps);
  if (maxTokens < MIN_CALL_TOKENS) return { ok: false, spent: `${why.join('; ')}: less than ${MIN_CALL_TOKENS} completion tokens left for another call` };
  return { ok: true, maxTokens };
}

/** A rough token count of a prompt (JSON characters / 4, rounded up): enough to reserve a call's completion before the endpoint counts exactly. */
export const estimateTokens = (messages: unknown): number => Math.ceil(JSON.stringify(messages).length / 4);
