import type { PlatformContext } from '@bvl/platform';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.ts';
import { tenantOfToken } from './run-tokens.ts';
import { ApiError } from './to-error-response.ts';

/** The one 404 the API answers, for an unknown route and for another tenant's resource alike. */
export const notFound = (c: Context): ApiError => new ApiError('not_found', `not found: ${c.req.method} ${c.req.path}`);

const BEARER_SCHEME = /^Bearer(?:[ ]|$)/i;
// RFC 6750 §2.1: b64token, with optional padding.
const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;

/** The realm every challenge names. */
export const REALM = 'bvl';

/**
 * The RFC 6750 challenge: with no credentials, the realm alone (§3.1: a client that sent none gets
 * no error code); otherwise the error and a description. Quoted-string values: the descriptions
 * are plain ASCII without quotes or backslashes, as §3 requires.
 */
export function bearerChallenge(error?: { readonly code: 'invalid_token' | 'invalid_request'; readonly description: string }): string {
  return error ? `Bearer realm="${REALM}", error="${error.code}", error_description="${error.description}"` : `Bearer realm="${REALM}"`;
}

/**
 * Bearer-token auth (RFC 6750). The token's tenant is looked up in the store (hashed, compared in
 * constant time) on every request — no in-process state, so any number of servers share one
 * database. No credentials: 401 with the bare challenge; an unknown or revoked token: 401 with
 * `error="invalid_token"`, so a client configured with a token reports it instead of starting an
 * interactive OAuth flow; a malformed Bearer header: 400 `invalid_request`. With `pathTenant`, a
 * request for another tenant than the token's is the same 404 an unknown route gets: whether that
 * tenant exists does not leak.
 */
export function bearerAuth(ctx: PlatformContext, options: { readonly pathTenant: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const m = BEARER.exec(header);
    if (!m) {
      if (BEARER_SCHEME.test(header)) {
        const description = 'the Authorization header is not of the form Bearer <token>';
        throw new ApiError('invalid_request', `${description} (one token, no spaces in it)`, undefined, {
          headers: { 'WWW-Authenticate': bearerChallenge({ code: 'invalid_request', description }) },
        });
      }
      throw new ApiError(
        'unauthorized',
        'this needs a bearer token: send "Authorization: Bearer <token>" (bvl token create --tenant <t> issues one)',
        undefined,
        {
          headers: { 'WWW-Authenticate': bearerChallenge() },
        },
      );
    }
    const tenant = await tenantOfToken(ctx, m[1]!);
    if (tenant === undefined) {
      const description = 'the bearer token is not valid: unknown, malformed or revoked';
      throw new ApiError('unauthorized', `${description} (bvl token create --tenant <t> issues a new one)`, undefined, {
        headers: { 'WWW-Authenticate': bearerChallenge({ code: 'invalid_token', description }) },
      });
    }
    if (options.pathTenant && c.req.param('tenant') !== tenant) throw notFound(c);
    c.set('tenant', tenant);
    c.var.facts.tenant = tenant;
    await next();
  };
}
