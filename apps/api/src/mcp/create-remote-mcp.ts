import type { AgentClient } from '@bvl/build-agent';
import type { PlatformContext } from '@bvl/platform';
import type { EffectivePolicy } from '@bvl/verify-build';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { z } from 'zod';
import type { RequestFacts } from '../app-env.ts';
import { describeCause } from '../to-error-response.ts';
import { outcomeOf, type Surface, TOOLS, type ToolName } from '../tools.ts';
import { registerTools } from './register-tools.ts';
import { toolError, toolResult } from './tool-result.ts';

/** What the remote MCP server tells an agent about itself. */
export const REMOTE_INSTRUCTIONS =
  'bvl verifies metadata builds (ObjectStack stack format). Loop: stage_drafts (or stage_draft) the artifacts — the answer lists the L1 issues they caused — then verify_build (in a session from create_session: the safe fixer runs, the round is recorded, the answer says what is left), repair (apply_fix takes the patchId of an issue), and publish when next is "publish" — refused while L1/L2 has an error. Answers are summaries: errors first, a page of issues (each once, by id) and `more.cursor` for the rest; filter by codes, severity, layer or artifact; detail: "full" gives every field. A package exists once a draft is staged to it or a session created.';

/**
 * An MCP server over the service's tools for one tenant (the bearer token's): the same functions
 * the HTTP routes call, so both surfaces answer alike. Built per request (stateless streamable
 * HTTP): nothing lives in the process between calls.
 */
export function createRemoteMcp(
  platform: PlatformContext,
  tenant: string,
  facts: RequestFacts,
  version: string,
  bounds: Pick<Surface, 'publishBy' | 'deadline'> = {},
  policy?: EffectivePolicy,
  judge?: AgentClient | undefined,
): McpServer {
  const server = new McpServer({ name: 'bvl', version }, { capabilities: { tools: {} }, instructions: REMOTE_INSTRUCTIONS });
  const defs = Object.values(TOOLS)
    .filter((tool: { mcp?: false }) => tool.mcp !== false)
    .map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      input: tool.input,
      output: tool.output as z.ZodObject,
      // Only what differs from MCP's defaults (readOnlyHint and idempotentHint false, openWorldHint true).
      annotations: { ...(tool.readOnly ? { readOnlyHint: true, idempotentHint: true } : {}), openWorldHint: false },
    }));
  registerTools(server, defs, (def) => async (args) => {
    const tool = TOOLS[def.name as ToolName];
    facts.tool = tool.name;
    facts.package = args.package as string;
    try {
      // Over MCP an answer is a summary by default: what a model reads is sized for its context.
      const output = await (tool.run as (ctx: PlatformContext, tenant: string, input: unknown, surface: Surface) => Promise<object>)(platform, tenant, args, {
        detail: 'summary',
        ...bounds,
        policy,
        judge,
      });
      Object.assign(facts, outcomeOf(tool.name as ToolName, output));
      return toolResult(output, (output as { outcome?: string }).outcome === 'failed');
    } catch (e) {
      const { result, code, cause } = toolError(e);
      facts.outcome = code;
      if (cause) facts.error = describeCause(cause);
      return result;
    }
  });
  return server;
}
