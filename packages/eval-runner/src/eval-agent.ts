import type { BuildIssue } from '@bvl/build-issue';
import type { PackageScope, PlatformContext } from '@bvl/platform';
import type { Assertion, AttemptBudget, Blueprint, DefectSet } from './case-file.ts';

/** The variant of a case that stages its blueprint as it is. */
export const CLEAN_VARIANT = 'clean';

/** The prompt variant that is the case's own `prompt`. */
export const DEFAULT_PROMPT = 'default';

/**
 * One golden case as an agent under test receives it: the case, which variant this attempt runs
 * (`clean`, or the name of one of its defect sets), and the stack the attempt starts from.
 */
export interface EvalCase {
  readonly name: string;
  readonly version: string;
  /** What the agent is asked: the case's prompt, or the text of the prompt variant this attempt runs. */
  readonly prompt: string;
  /** `default` (the case's own prompt), or the name of one of its prompt variants. */
  readonly promptVariant: string;
  readonly tags: readonly string[];
  readonly maxRounds: number;
  /** The case's budget for one attempt of a model agent, when it sets one. */
  readonly budget?: AttemptBudget | undefined;
  readonly assertions: readonly Assertion[];
  /** `clean`, or a defect set's name. */
  readonly variant: string;
  /**
   * The stack this attempt starts from: the blueprint, with the defect set's operations applied for
   * a defect variant. The blueprint agent stages it; an agent that builds from the prompt stages it
   * only for a defect variant (a build to repair) and starts from nothing for `clean`.
   */
  readonly start: Blueprint;
  /** The defect set of a defect variant. */
  readonly defect?: DefectSet;
  /** The case was recorded from a failed session: `start` is the state it left, not a clean reference. */
  readonly recorded: boolean;
}

/** Tokens and money an agent spent on one attempt. */
export interface EvalUsage {
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
}

/** What an agent hands back: the build session it ran (rounds, stop reason) and what it spent. */
export interface EvalAgentResult {
  /** The build session the agent ran in the attempt's package; null if it never opened one. */
  readonly sessionId: string | null;
  readonly usage: EvalUsage;
  /** Why the agent ended, when it ended with the session still open (the session's stop reason wins otherwise). */
  readonly stopped?: string | undefined;
  /** The agent could not go on for a reason outside the build (its endpoint failed for good): the attempt is `error`. */
  readonly error?: string | undefined;
  /** The intent review the agent ran after a clean publish: its verdict and its `intent` findings. */
  readonly review?: AgentReview | undefined;
}

/** An intent review's outcome as an attempt keeps it. */
export interface AgentReview {
  readonly verdict: 'pass' | 'mismatch' | 'failed';
  readonly issues: readonly BuildIssue[];
}

/** What an agent is given for one attempt: a fresh tenant's package, the case, and an abort signal. */
export interface EvalAgentInput {
  readonly platform: PlatformContext;
  readonly scope: PackageScope;
  readonly case: EvalCase;
  /** Aborted at the attempt's time limit (the attempt is then `limit`) or when the run is stopped. */
  readonly signal: AbortSignal;
}

/**
 * An agent under test. It builds through exactly the path every agent takes — stage drafts,
 * verify_build in a session, publish when verify says `publish` — and reports its session; the
 * runner grades what the platform holds afterwards, never what the agent says about it.
 */
export interface EvalAgent {
  readonly name: string;
  readonly model?: string | undefined;
  readonly endpoint?: string | undefined;
  /**
   * Whether the agent reads the prompt (default true). One that does not (the blueprint agent
   * stages a stack) runs only a case's default prompt: its prompt variants would be the same attempt.
   */
  readonly readsPrompt?: boolean | undefined;
  run(input: EvalAgentInput): Promise<EvalAgentResult>;
}

/**
 * An agent's model endpoint said 429 (or the like). The runner backs off — fewer attempts at once,
 * a pause of `retryAfterMs` or an exponential one — and runs the attempt again from a fresh tenant.
 */
export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';
  constructor(
    message: string,
    /** What the endpoint asked to wait (Retry-After), if it said. */
    readonly retryAfterMs?: number | undefined,
  ) {
    super(message);
  }
}

/** No usage: what a deterministic agent spends. */
export const NO_USAGE: EvalUsage = { tokensIn: 0, tokensOut: 0, costUsd: 0 };
