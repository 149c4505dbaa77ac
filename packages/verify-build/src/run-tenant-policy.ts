import { checkScope, ensureTenant, type PlatformContext } from '@bvl/platform';
import { SessionError } from './session-error.ts';
import { DEFAULT_POLICY, type EffectivePolicy, effectivePolicy, loosenings, type TenantPolicy, TenantPolicySchema } from './tenant-policy.ts';

/** A tenant's policy as stored, and what is in force with the server's defaults. */
export interface PolicyView {
  readonly tenant: string;
  /** What the tenant set (empty: nothing, the server's default policy applies). */
  readonly policy: TenantPolicy;
  /** What the server enforces: the tenant's fields over the server's default policy. */
  readonly effective: EffectivePolicy;
  /** Bumped by every change (0: never set). */
  readonly version: number;
  readonly updatedAt: string | null;
}

type Db = PlatformContext['db'];

async function readPolicy(db: Db, tenant: string, lock?: 'update') {
  let q = db.selectFrom('bvl.tenant_policies').select(['policy', 'version', 'updated_at']).where('tenant_id', '=', tenant);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

const viewOf = (tenant: string, row: Awaited<ReturnType<typeof readPolicy>>, server: EffectivePolicy): PolicyView => {
  // A stored policy was validated when it was written; one that no longer parses (a field removed later) counts as unset.
  const parsed = TenantPolicySchema.safeParse(row?.policy ?? {});
  const policy = parsed.success ? parsed.data : {};
  return {
    tenant,
    policy,
    effective: effectivePolicy(policy, server),
    version: row ? Number(row.version) : 0,
    updatedAt: row ? new Date(row.updated_at).toISOString() : null,
  };
};

/** The tenant's policy and what is in force (over `server`, the server's default policy). */
export async function getTenantPolicy(ctx: PlatformContext, tenant: string, server: EffectivePolicy = DEFAULT_POLICY): Promise<PolicyView> {
  checkScope({ tenant });
  return viewOf(tenant, await readPolicy(ctx.db, tenant), server);
}

/**
 * Replaces the tenant's policy (validated: a bad field is a {@link SessionError} naming it). With
 * `onlyTighten` (a tenant's own token over HTTP), a change that loosens what is in force is
 * refused (`forbidden`), naming each loosening: that is the operator's, with `bvl policy set`.
 * The old policy is read under a row lock, so two changes at once apply one after the other. A
 * session already open keeps the bounds it was opened with: a change binds sessions opened after it.
 */
export async function putTenantPolicy(
  ctx: PlatformContext,
  tenant: string,
  input: unknown,
  options: { readonly server?: EffectivePolicy | undefined; readonly onlyTighten?: boolean | undefined } = {},
): Promise<PolicyView> {
  checkScope({ tenant });
  const parsed = TenantPolicySchema.safeParse(input ?? {});
  if (!parsed.success)
    throw new SessionError(`invalid policy: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(policy)'}: ${i.message}`).join('; ')}`);
  const server = options.server ?? DEFAULT_POLICY;
  const next = effectivePolicy(parsed.data, server);
  // A default the tenant sets over a maximum it sets is a mistake; an inherited default is capped by the maximum when a session opens.
  for (const key of ['maxRounds', 'budgetMs', 'budgetTokens', 'budgetUsd', 'idleMs'] as const) {
    const d = parsed.data.defaults?.[key];
    const m = parsed.data.maximums?.[key];
    if (d !== undefined && m !== undefined && d > m) throw new SessionError(`invalid policy: defaults.${key} ${d} is over maximums.${key} ${m}`);
  }
  await ensureTenant(ctx, { tenant });
  const at = ctx.now().toISOString();
  return ctx.db.transaction().execute(async (trx) => {
    const before = await readPolicy(trx, tenant, 'update');
    if (options.onlyTighten) {
      const loose = loosenings(viewOf(tenant, before, server).effective, next);
      if (loose.length)
        throw new SessionError(
          `a tenant token can only tighten its policy; this change loosens it (${loose.join('; ')}). The server's operator changes it with: bvl policy set --tenant ${tenant} '<policy JSON>'`,
          'forbidden',
        );
    }
    const row = { tenant_id: tenant, policy: JSON.stringify(parsed.data), updated_at: at };
    const written = await trx
      .insertInto('bvl.tenant_policies')
      .values({ ...row, version: 1 })
      .onConflict((oc) =>
        oc.column('tenant_id').doUpdateSet((eb) => ({ policy: row.policy, updated_at: at, version: eb('bvl.tenant_policies.version', '+', 1) })),
      )
      .returning(['policy', 'version', 'updated_at'])
      .executeTakeFirstOrThrow();
    return viewOf(tenant, written, server);
  });
}
