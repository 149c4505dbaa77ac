export type { AppEnv, Logger, RequestFacts } from './app-env.ts';
export { type AppDeps, createApp, DEFAULT_LIMITS, type Limits } from './create-app.ts';
export { expandArtifact } from './expand-artifact.ts';
export { REMOTE_INSTRUCTIONS } from './mcp/create-remote-mcp.ts';
export { retireArtifact, stageArtifact, type WriteResult } from './run-draft-writes.ts';
export { createToken, listTokens, MAX_TOKEN_LABEL, revokeToken, type TokenInfo, tenantOfToken } from './run-tokens.ts';
export { ApiError, type ErrorBody, type ErrorCode, isDatabaseUnavailable, type Problem, toErrorResponse } from './to-error-response.ts';
export { TOOLS, type Tool, type ToolName } from './tools.ts';
