export { type AgentClient, type AgentClientOptions, agentClientFromEnv, createAgentClient, DEFAULT_CALL_TIMEOUT_MS } from './agent-client.ts';
export { AGENT_ARTIFACT_TYPES, AGENT_TOOL_NAMES, type AgentToolName } from './agent-tools.ts';
export { IntentReviewSchema } from './intent-review.ts';
export { DEFAULT_PRICES, type Price, type PriceTable } from './price-table.ts';
export { DEFAULT_RETRY, type RetryOptions } from './retry-plan.ts';
export {
  type BuildBounds,
  type BuildProgress,
  type BuildResult,
  BuildSetupError,
  DEFAULT_MAX_TURNS_PER_ROUND,
  MAX_IDLE_INTERVENTIONS,
  MAX_TURNS_PER_ROUND,
  type RunBuildInput,
  runBuild,
} from './run-build.ts';
export { ModelCallError, type RetryNotice } from './run-chat.ts';
export { type IntentReview, type ReviewIntentInput, reviewIntent } from './run-intent-review.ts';
export { MAX_SYSTEM_PROMPT_CHARS, systemPrompt } from './system-prompt.ts';
export type { AgentUsage } from './usage-meter.ts';
