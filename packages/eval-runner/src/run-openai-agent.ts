import { collectStack } from '@bvl/metadata';
import type { PackageScope, PlatformContext } from '@bvl/platform';
import { stageDrafts } from '@bvl/platform';
import type { AttemptBudget } from './case-file.ts';
import { type AgentReview, CLEAN_VARIANT, type EvalAgent, type EvalAgentResult, type EvalUsage, RateLimitedError } from './eval-agent.ts';

/**
 * The built-in agent as the `openai` eval agent needs it: one build towards a prompt in a package,
 * through the same session, verify_build and gated publish as every agent. The composition root
 * fills it with build-agent's `runBuild` bound to a model client (a port owned here, so eval-runner
 * does not depend on the agent package).
 */
export interface AgentBuilder {
  readonly model: string;
  /** Where the model endpoint is, for the row (no credentials). */
  readonly endpoint: string;
  build(input: {
    readonly platform: PlatformContext;
    readonly scope: PackageScope;
    readonly prompt: string;
    readonly maxRounds: number;
    /** The case's budget for the attempt (the composition root may lower it, never raise it). */
    readonly budget?: AttemptBudget | undefined;
    readonly signal: AbortSignal;
  }): Promise<{
    readonly session: { readonly id: string };
    readonly usage: EvalUsage;
    /** Why the build could not go on (the model endpoint failed for good). */
    readonly error?: string | undefined;
    /** With `error`: the HTTP status the endpoint last answered (429: rate limited). */
    readonly errorStatus?: number | undefined;
    /** The intent review after a clean publish: its verdict and `intent` findings (kept on the row, graded when a case asks). */
    readonly review?: AgentReview | undefined;
  }>;
}

/**
 * The `openai` agent under test: the built-in agent over an OpenAI-compatible endpoint. A clean
 * variant builds from the prompt alone; a defect variant first stages the broken stack as drafts —
 * a build to repair, which the agent sees in its opening message. A build the endpoint ended with
 * 429s after the agent's own retries is a {@link RateLimitedError}, so the runner backs off and
 * tries again; any other endpoint failure is reported as the attempt's `error`.
 */
export function openaiAgent(builder: AgentBuilder): EvalAgent {
  return {
    name: 'openai',
    model: builder.model,
    endpoint: builder.endpoint,
    async run({ platform, scope, case: c, signal }): Promise<EvalAgentResult> {
      signal.throwIfAborted();
      if (c.variant !== CLEAN_VARIANT || c.recorded) await stageDrafts(platform, scope, collectStack(c.start, { draft: true }));
      const r = await builder.build({ platform, scope, prompt: c.prompt, maxRounds: c.maxRounds, budget: c.budget, signal });
      if (r.error !== undefined && r.errorStatus === 429) throw new RateLimitedError(r.error);
      return {
        sessionId: r.session.id,
        usage: r.usage,
        ...(r.error !== undefined ? { error: r.error } : {}),
        ...(r.review !== undefined ? { review: r.review } : {}),
      };
    },
  };
}
