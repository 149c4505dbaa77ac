import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toErrorResponse } from '../to-error-response.ts';

/**
 * A tool's output as an MCP result: `structuredContent` (checked against the tool's outputSchema)
 * and, as the spec asks, the same JSON as text. Blocking issues are data; `isError` only when bvl
 * itself failed (`failed`).
 */
export function toolResult(output: object, failed = false): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(output) }],
    structuredContent: output as Record<string, unknown>,
    ...(failed ? { isError: true } : {}),
  };
}

/**
 * A thrown error as an MCP error result: the same code and message the HTTP API would answer. A
 * local server (`bvl mcp`, the user's own process) also passes an unexpected error's message on.
 */
export function toolError(e: unknown, options: { readonly local?: boolean } = {}): { result: CallToolResult; code: string; cause?: unknown } {
  const r = toErrorResponse(e);
  if (options.local && r.body.error === 'internal') r.body = { ...r.body, message: `bvl failed: ${(e as Error)?.message ?? String(e)}` };
  const problems = r.body.problems?.map((p) => `\n- ${p.path}: ${p.message}`).join('') ?? '';
  return { result: { content: [{ type: 'text', text: `${r.body.error}: ${r.body.message}${problems}` }], isError: true }, code: r.body.error, cause: r.cause };
}
