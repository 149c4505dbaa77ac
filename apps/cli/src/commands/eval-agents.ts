import { type AgentClient, agentClientFromEnv, runBuild } from '@bvl/build-agent';
import {
  type AttemptBudget,
  attemptBounds,
  type Cassette,
  type EvalAgent,
  evalAgentNamed,
  type FetchLike,
  openaiAgent,
  openaiJudge,
  type RubricJudge,
} from '@bvl/eval-runner';
import { UsageError } from '../parse-args.ts';

/** The base URL the client is given when a cassette replays: nothing is ever sent there. */
export const REPLAY_BASE_URL = 'http://replay.invalid/v1';

/** Where the eval agents' model calls go: the endpoint the environment names, through a cassette when one is open. */
export interface ModelTransport {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Recording passes calls through to the endpoint and keeps them; replaying answers from it alone (no endpoint needed). */
  readonly cassette?: Cassette | undefined;
  /** The run's cap on every attempt's budget (`--budget-tokens`, `--budget-usd`, `--budget-seconds`): a case's own budget can only be lowered by it. */
  readonly budget?: AttemptBudget | undefined;
}

/** A client for `model` over the environment's endpoint (or the cassette), with `fetch` as its transport. */
function clientFor(t: ModelTransport, model: string | null | undefined, fetch: FetchLike | undefined, what: string): AgentClient {
  const replaying = t.cassette?.mode === 'replay';
  const env = {
    ...t.env,
    ...(model ? { BVL_MODEL: model } : {}),
    // A replay needs no endpoint: the cassette answers, and the base URL only has to parse.
    ...(replaying && !t.env.OPENAI_BASE_URL?.trim() && !t.env.OPENAI_API_KEY?.trim() ? { OPENAI_BASE_URL: REPLAY_BASE_URL } : {}),
  };
  const configured = agentClientFromEnv(env, fetch ? { fetch } : {});
  if ('problem' in configured) throw new UsageError(`${what}: ${configured.problem}`);
  return configured.client;
}

/**
 * The agents `bvl eval` and `bvl eval-worker` can run, by name and model: eval-runner's own
 * (`blueprint`) and `openai`, the built-in agent (packages/build-agent) over the endpoint the
 * environment names (OPENAI_BASE_URL / OPENAI_API_KEY, BVL_MODEL unless a model is given,
 * BVL_PRICES). Composed here, where both packages meet, so eval-runner does not depend on the
 * agent. With a cassette, each attempt gets a client of its own whose `fetch` is the cassette's:
 * a replay that met a request it has no answer for ends the attempt as `error` naming the request
 * (even one the agent itself survived, such as its intent review). Undefined for an unknown name;
 * a usage error when `openai` has no endpoint or model.
 */
export function evalAgentsFrom(transport: ModelTransport): (name: string, model?: string | null) => EvalAgent | undefined {
  return (name, model) => {
    if (name !== 'openai') return evalAgentNamed(name);
    const probe = clientFor(transport, model, undefined, '--agent openai');
    return openaiAgent({
      model: probe.model,
      endpoint: transport.cassette?.mode === 'replay' ? `replay of ${transport.cassette.dir}` : probe.endpoint,
      build: async ({ platform, scope, prompt, maxRounds, budget, signal }) => {
        const session = transport.cassette?.session();
        const client = session ? clientFor(transport, probe.model, session.fetch, '--agent openai') : probe;
        const r = await runBuild({ platform, scope, prompt, client, bounds: { maxRounds, ...attemptBounds(budget, transport.budget) }, signal });
        const misses = session?.misses() ?? [];
        return {
          session: r.session,
          usage: { tokensIn: r.usage.tokensIn, tokensOut: r.usage.tokensOut, costUsd: r.usage.costUsd },
          error: misses.length > 0 ? `replay: ${misses.length} request(s) had no recorded answer: ${misses.join('; ')}` : r.error,
          errorStatus: misses.length > 0 ? undefined : r.errorStatus,
          ...(r.review !== undefined ? { review: { verdict: r.review, issues: r.issues.filter((i) => i.layer === 'intent') } } : {}),
        };
      },
    });
  };
}

/**
 * The judge of rubric assertions: `model` over the same endpoint (or cassette) as the agent, priced
 * by the same table. A replayed judge call with no recorded answer fails the attempt (`error`).
 */
export function judgeFrom(t: ModelTransport, model: string): RubricJudge {
  const probe = clientFor(t, model, undefined, '--judge-model');
  return openaiJudge({
    model: probe.model,
    price: probe.price,
    complete: async (params, options) => {
      const session = t.cassette?.session();
      const client = session ? clientFor(t, model, session.fetch, '--judge-model') : probe;
      const r = await client.openai.chat.completions.create(
        {
          model: params.model,
          messages: [...params.messages],
          response_format: params.response_format as never,
          stream: false,
        },
        { signal: options.signal },
      );
      const misses = session?.misses() ?? [];
      if (misses.length > 0) throw new Error(`replay: no recorded answer for ${misses.join('; ')}`);
      return r;
    },
  });
}

/** The agent names `bvl eval --agent` takes. */
export const EVAL_AGENT_NAMES = ['blueprint', 'openai'] as const;
