import type { PlatformContext } from '@bvl/platform';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.ts';
import { tenantOfToken } from './run-tokens.ts';
import { ApiError } from './to-error-response.ts';

/** The one 404 the API answers, for an unknown route and for another tenant's resource alike. */
export const notFound = (c: Context): ApiError => new ApiError('not_found', `not found: ${c.req.method} ${c.req.path}`);

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/**
 * Bearer-token auth. The token's tenant is looked up in the store (hashed, compared in constant
 * time) on every request — no in-process state, so any number of servers share one database. With
 * `pathTenant`, a request for another tenant than the token's is the same 404 an unknown route gets:
 * whether that tenant exists does not leak.
 */
export function bearerAuth(ctx: PlatformContext, options: { readonly pathTenant: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const m = BEARER.exec(c.req.header('authorization') ?? '');
    if (!m) throw new ApiError('unauthorized', 'this needs a bearer token: send "Authorization: Bearer <token>" (bvl token create --tenant <t> issues one)');
    const tenant = await tenantOfToken(ctx, m[1]!);
    if (tenant === undefined) throw new ApiError('unauthorized', 'the bearer token is not valid (unknown, malformed or revoked)');
    if (options.pathTenant && c.req.param('tenant') !== tenant) throw notFound(c);
    c.set('tenant', tenant);
    c.var.facts.tenant = tenant;
    await next();
  };
}
