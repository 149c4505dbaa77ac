import type { PlatformContext } from '@bvl/platform';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestFacts } from '../app-env.ts';
import { describeCause } from '../to-error-response.ts';
import { outcomeOf, TOOLS, type ToolName } from '../tools.ts';
import { toolError, toolResult } from './tool-result.ts';

/** What the remote MCP server tells an agent about itself. */
export const REMOTE_INSTRUCTIONS =
  'bvl verifies metadata builds (ObjectStack stack format). Loop: stage_draft each artifact (the answer lists the L1 issues the write caused), verify_build (optionally in a session from create_session: the safe fixer runs and the round is recorded), repair what it reports, then publish — refused while L1/L2 has an error. Issues name the artifact, member, path and fix; a `patch` is RFC 6902 on the stored document. A package exists once a draft is staged to it or a session created; any other call on a package that does not exist is not_found, naming the closest packages.';

/**
 * An MCP server over the service's tools for one tenant (the bearer token's): the same functions
 * the HTTP routes call, so both surfaces answer alike. Built per request (stateless streamable
 * HTTP): nothing lives in the process between calls.
 */
export function createRemoteMcp(platform: PlatformContext, tenant: string, facts: RequestFacts, version: string): McpServer {
  const server = new McpServer({ name: 'bvl', version }, { capabilities: { tools: {} }, instructions: REMOTE_INSTRUCTIONS });
  for (const tool of Object.values(TOOLS)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { readOnlyHint: tool.readOnly, openWorldHint: false, idempotentHint: tool.readOnly },
      },
      async (args: Record<string, unknown>) => {
        facts.tool = tool.name;
        facts.package = args.package as string;
        try {
          const output = await (tool.run as (ctx: PlatformContext, tenant: string, input: unknown) => Promise<object>)(platform, tenant, args);
          Object.assign(facts, outcomeOf(tool.name as ToolName, output));
          return toolResult(output, (output as { outcome?: string }).outcome === 'failed');
        } catch (e) {
          const { result, code, cause } = toolError(e);
          facts.outcome = code;
          if (cause) facts.error = describeCause(cause);
          return result;
        }
      },
    );
  }
  return server;
}
