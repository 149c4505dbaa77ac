import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { checkScope, ensureTenant, type PlatformContext } from '@bvl/platform';

/** A token as issued: `bvl_<id>_<secret>`; the id finds the row, only the secret's hash is stored. */
const TOKEN = /^bvl_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** Longest label a token may carry. */
export const MAX_TOKEN_LABEL = 200;

/** A token as listed (never the secret). */
export interface TokenInfo {
  readonly id: string;
  readonly tenant: string;
  readonly label: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

const hashOf = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/**
 * Issues a bearer token for a tenant (registering the tenant if new). The token is returned once;
 * the store keeps its id and the sha256 of its 256-bit secret, so a leaked database does not leak it.
 */
export async function createToken(
  ctx: PlatformContext,
  input: { readonly tenant: string; readonly label?: string | undefined },
): Promise<{ token: string; info: TokenInfo }> {
  checkScope({ tenant: input.tenant });
  const label = (input.label ?? '').slice(0, MAX_TOKEN_LABEL);
  await ensureTenant(ctx, { tenant: input.tenant });
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const at = ctx.now().toISOString();
  await ctx.db
    .insertInto('bvl.api_tokens')
    .values({ id, tenant_id: input.tenant, secret_hash: hashOf(secret).toString('hex'), label, created_at: at })
    .execute();
  return { token: `bvl_${id}_${secret}`, info: { id, tenant: input.tenant, label, createdAt: at, revokedAt: null } };
}

// Compared against when the id is unknown, so a miss costs what a hit costs.
const DUMMY = hashOf('bvl-no-such-token');

/**
 * The tenant a bearer token belongs to, or undefined for anything else (malformed, unknown,
 * revoked). The secret's hash is compared in constant time.
 */
export async function tenantOfToken(ctx: PlatformContext, token: string): Promise<string | undefined> {
  const m = TOKEN.exec(token);
  if (!m) return undefined;
  const row = await ctx.db.selectFrom('bvl.api_tokens').select(['tenant_id', 'secret_hash', 'revoked_at']).where('id', '=', m[1]!).executeTakeFirst();
  const stored = row ? Buffer.from(row.secret_hash, 'hex') : DUMMY;
  const same = stored.length === DUMMY.length && timingSafeEqual(stored, hashOf(m[2]!));
  return row && same && row.revoked_at === null ? row.tenant_id : undefined;
}

/** The tenant's tokens, oldest first (ids and labels only). */
export async function listTokens(ctx: PlatformContext, tenant: string): Promise<TokenInfo[]> {
  checkScope({ tenant });
  const rows = await ctx.db
    .selectFrom('bvl.api_tokens')
    .select(['id', 'tenant_id', 'label', 'created_at', 'revoked_at'])
    .where('tenant_id', '=', tenant)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    tenant: r.tenant_id,
    label: r.label,
    createdAt: new Date(r.created_at).toISOString(),
    revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
  }));
}

/** Revokes a token of the tenant by id; false when the tenant has no such live token. */
export async function revokeToken(ctx: PlatformContext, input: { readonly tenant: string; readonly id: string }): Promise<boolean> {
  checkScope({ tenant: input.tenant });
  const r = await ctx.db
    .updateTable('bvl.api_tokens')
    .set({ revoked_at: ctx.now().toISOString() })
    .where('tenant_id', '=', input.tenant)
    .where('id', '=', input.id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
