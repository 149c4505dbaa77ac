import { sql } from 'kysely';
import type { PlatformContext } from './database.ts';
import { tenantSchema } from './identifier.ts';
import { checkScope } from './scope.ts';

/**
 * Registers the tenant (and package) and creates the tenant's schema if needed; returns the schema
 * name. Idempotent and safe to race: a concurrent creator's win is not an error.
 */
export async function ensureTenant(ctx: PlatformContext, scope: { readonly tenant: string; readonly package?: string | undefined }): Promise<string> {
  checkScope(scope);
  const schema = tenantSchema(scope.tenant);
  await ctx.db
    .insertInto('bvl.tenants')
    .values({ id: scope.tenant, schema_name: schema })
    .onConflict((oc) => oc.doNothing())
    .execute();
  if (scope.package !== undefined) {
    await ctx.db
      .insertInto('bvl.packages')
      .values({ tenant_id: scope.tenant, name: scope.package })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(ctx.db);
  } catch (e) {
    // `if not exists` still races on PostgreSQL's catalog; the schema existing afterwards is success.
    const found = await sql<{ n: number }>`select count(*)::int as n from pg_namespace where nspname = ${schema}`.execute(ctx.db);
    if (found.rows[0]?.n !== 1) throw e;
  }
  return schema;
}

/** Drops a tenant: its schema (every published table) and its metadata rows. Tests clean up with it. */
export async function dropTenant(ctx: PlatformContext, tenant: string): Promise<void> {
  checkScope({ tenant });
  await sql`drop schema if exists ${sql.id(tenantSchema(tenant))} cascade`.execute(ctx.db);
  // Packages, metadata items and the publish log go with the tenant row (ON DELETE CASCADE).
  await ctx.db.deleteFrom('bvl.tenants').where('id', '=', tenant).execute();
}
