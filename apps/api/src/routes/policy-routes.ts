import type { PlatformContext } from '@bvl/platform';
import { getTenantPolicy, putTenantPolicy } from '@bvl/verify-build';
import { createRoute, z } from '@hono/zod-openapi';
import { PolicyInput, PolicySchema, TenantParam } from '../schemas.ts';
import { type ApiApp, BEARER, ERRORS, error, json } from './route-kit.ts';

const tags = ['policy'];
const TenantParams = z.object({ tenant: TenantParam });

/**
 * A tenant's server policy: read it, and tighten it with the tenant's token (PUT replaces the
 * tenant's policy; a change that loosens what is in force is 403 — the operator loosens it with
 * `bvl policy set`). Not an MCP tool: an agent building an app has no business with it.
 */
export function policyRoutes(app: ApiApp, platform: PlatformContext): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/tenants/{tenant}/policy',
      tags,
      security: BEARER,
      operationId: 'get_policy',
      summary: "The tenant's policy",
      description: 'What the tenant set and what is in force (its fields over the server’s default policy).',
      request: { params: TenantParams },
      responses: { 200: json(PolicySchema, 'The policy.'), ...ERRORS },
    }),
    async (c) => c.json(await getTenantPolicy(platform, c.var.tenant, c.var.policy), 200),
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: '/v1/tenants/{tenant}/policy',
      tags,
      security: BEARER,
      operationId: 'put_policy',
      summary: "Tighten the tenant's policy",
      description:
        'Replaces the tenant’s policy. A tenant token may only tighten what is in force (require sessions, lower a maximum, lengthen the window); the server’s operator loosens it with `bvl policy set`. Sessions already open keep their bounds.',
      request: { params: TenantParams, body: { content: { 'application/json': { schema: PolicyInput } }, required: true } },
      responses: {
        200: json(PolicySchema, 'The policy now.'),
        403: error('The change would loosen the policy in force; the message names each loosening.'),
        ...ERRORS,
      },
    }),
    async (c) => {
      c.var.facts.outcome = 'policy_set';
      return c.json(await putTenantPolicy(platform, c.var.tenant, c.req.valid('json'), { server: c.var.policy, onlyTighten: true }), 200);
    },
  );
}
