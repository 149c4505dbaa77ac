import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult, ListToolsRequestSchema, type Tool as McpTool, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** A tool as an MCP server offers it: what tools/list says of it, and the zod schemas calls are checked against. */
export interface McpToolDef {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  readonly annotations: ToolAnnotations;
}

/** Drops what says nothing: an empty `properties`, and `additionalProperties: true` (JSON Schema's default: an object is open unless it says otherwise). */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' && v !== null && typeof v === 'object' && Object.keys(v).length === 0) continue;
    if (k === 'additionalProperties' && v === true) continue;
    out[k] = k === 'properties' || k === 'definitions' ? Object.fromEntries(Object.entries(v as object).map(([p, x]) => [p, compact(x)])) : compact(v);
  }
  return out;
}

/** A schema as tools/list carries it: zod's JSON Schema (draft-07, as the SDK makes it), without the `$schema` line or what says nothing (see compact). */
function schemaJson(schema: z.ZodObject, io: 'input' | 'output'): McpTool['inputSchema'] {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, { target: 'draft-7', io }) as Record<string, unknown>;
  return compact(json) as McpTool['inputSchema'];
}

/**
 * Registers the tools on an MCP server (the SDK validates each call's arguments and each result's
 * structuredContent against the zod schemas) and answers tools/list from the same definitions —
 * what the SDK lists, less each schema's `$schema` line, empty `properties` and the default
 * `execution` note. tools/list
 * is read into the model's context on every turn, so every token of it is paid for again and again.
 */
export function registerTools(
  server: McpServer,
  defs: readonly McpToolDef[],
  handler: (def: McpToolDef) => (args: Record<string, unknown>) => Promise<CallToolResult>,
): void {
  for (const d of defs)
    server.registerTool(
      d.name,
      { title: d.title, description: d.description, inputSchema: d.input, outputSchema: d.output, annotations: d.annotations },
      handler(d),
    );
  const tools: McpTool[] = defs.map((d) => ({
    name: d.name,
    title: d.title,
    description: d.description,
    inputSchema: schemaJson(d.input, 'input'),
    outputSchema: schemaJson(d.output, 'output') as McpTool['outputSchema'],
    annotations: d.annotations,
  }));
  server.server.removeRequestHandler('tools/list');
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
}
