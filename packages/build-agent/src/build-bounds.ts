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
