import type { PlatformContext } from '@bvl/platform';
import type { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ErrorSchema } from '../schemas.ts';
import { outcomeOf, type Surface, type Tool, type ToolName } from '../tools.ts';

/** The app the routes register on. */
export type ApiApp = OpenAPIHono<AppEnv>;

/** Where a package's routes live (OpenAPI path syntax). */
export const PACKAGE_PATH = '/v1/tenants/{tenant}/packages/{package}';

/** An error response of a route. */
export const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });

/** The error responses every authenticated route can give. */
export const ERRORS = {
  400: error('Invalid input: `problems` lists each problem with its path.'),
  401: error('Missing or invalid bearer token (RFC 6750: `WWW-Authenticate` carries `error="invalid_token"` for a token that is not valid).'),
  404: error('Unknown route or resource — also for another tenant than the token’s (existence does not leak).'),
  408: error('`request_timeout`: the request body was not received within the bound; send it again.'),
  413: error(
    'The body is over the size limit, or a draft is over the input bounds (`message` names the artifact, the bound and the figure); nothing was written.',
  ),
  415: error('A body that is not JSON: send it with `Content-Type: application/json`.'),
  429: {
    ...error('The tenant already has the most requests this server runs and queues for it; nothing ran. Retry after `Retry-After` seconds.'),
    headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' as const, minimum: 1 } } },
  },
  503: error(
    '`database_unavailable`: the database is unreachable or went away; `timeout`: the request did not finish within its bound and was cancelled (nothing written). `Retry-After` says when to retry.',
  ),
} as const;

/** What a verify or publish without a session answers where the tenant's policy requires one. */
export const SESSION_REQUIRED = { 428: error('`session_required`: the tenant’s policy requires a build session; the message says how to open one.') } as const;

/** Security requirement of the authenticated routes. */
export const BEARER = [{ bearer: [] }];

/** A JSON response of a route. */
export const json = <S extends z.ZodType>(schema: S, description: string) => ({ description, content: { 'application/json': { schema } } });

/**
 * Runs a tool for the request's tenant and records what the log line says about it. The tool's
 * input is the path's package plus what the route parsed.
 */
export async function runTool<I extends z.ZodObject, O extends z.ZodType>(
  c: Context<AppEnv>,
  tool: Tool<I, O>,
  input: z.output<I>,
  platform: PlatformContext,
  surface: Partial<Omit<Surface, 'detail'>> = {},
) {
  const facts = c.var.facts;
  const i = input as { package?: string; session?: string; id?: string };
  facts.package = i.package;
  if (i.session ?? i.id) facts.session = i.session ?? i.id;
  // Over HTTP an answer is full by default (detail: "summary" asks for the compact form).
  const output = await tool.run(platform, c.var.tenant, input, { detail: 'full', deadline: c.var.deadline, policy: c.var.policy, ...surface });
  Object.assign(facts, outcomeOf(tool.name as ToolName, output));
  return output as z.infer<O>;
}
