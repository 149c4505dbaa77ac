import type { EvalAgent } from './eval-agent.ts';
import { blueprintAgent } from './run-blueprint-agent.ts';

/** The agents `bvl eval --agent` and the queue's workers know, by name. */
export const EVAL_AGENTS: Readonly<Record<string, () => EvalAgent>> = {
  blueprint: blueprintAgent,
};

/** An agent by name, or undefined for a name no agent has. */
export function evalAgentNamed(name: string): EvalAgent | undefined {
  return Object.hasOwn(EVAL_AGENTS, name) ? EVAL_AGENTS[name]!() : undefined;
}
