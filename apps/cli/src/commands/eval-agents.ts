import { agentClientFromEnv, runBuild } from '@bvl/build-agent';
import { type EvalAgent, evalAgentNamed, openaiAgent } from '@bvl/eval-runner';
import { UsageError } from '../parse-args.ts';

/**
 * The agents `bvl eval` and `bvl eval-worker` can run, by name: eval-runner's own (`blueprint`) and
 * `openai`, the built-in agent (packages/build-agent) over the endpoint the environment names
 * (OPENAI_BASE_URL / OPENAI_API_KEY, BVL_MODEL, BVL_PRICES). Composed here, where both packages
 * meet, so eval-runner does not depend on the agent. Undefined for an unknown name; a usage error
 * when `openai` is asked for without an endpoint.
 */
export function evalAgentsFrom(env: Readonly<Record<string, string | undefined>>): (name: string) => EvalAgent | undefined {
  return (name) => {
    if (name !== 'openai') return evalAgentNamed(name);
    const configured = agentClientFromEnv(env);
    if ('problem' in configured) throw new UsageError(`--agent openai: ${configured.problem}`);
    const { client } = configured;
    return openaiAgent({
      model: client.model,
      endpoint: client.endpoint,
      build: async ({ platform, scope, prompt, maxRounds, signal }) => {
        const r = await runBuild({ platform, scope, prompt, client, bounds: { maxRounds }, signal });
        return {
          session: r.session,
          usage: { tokensIn: r.usage.tokensIn, tokensOut: r.usage.tokensOut, costUsd: r.usage.costUsd },
          error: r.error,
          errorStatus: r.errorStatus,
        };
      },
    });
  };
}

/** The agent names `bvl eval --agent` takes. */
export const EVAL_AGENT_NAMES = ['blueprint', 'openai'] as const;
