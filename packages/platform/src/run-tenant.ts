import { type Kysely, sql } from 'kysely';
import type { PlatformContext } from './database.ts';
import { tenantSchema } from './identifier.ts';
import { ddlLiteral } from './run-ddl.ts';
import { checkScope } from './scope.ts';

/** Tables dropTenant drops per transaction (each takes about 8 locks: see DDL_LOCK_BUDGET). */
const DROP_TABLES_PER_TRANSACTION = 150;

/** The comment bvl puts on a tenant schema it creates: only a schema carrying it is altered (or dropped) by bvl. */
export const tenantSchemaMark = (tenant: string): string => `bvl:tenant:${tenant}`;

/** A tenant's schema exists but is not bvl's (no mark): bvl refuses to alter or drop it. */
export class ForeignSchemaError extends Error {
  override readonly name = 'ForeignSchemaError';
}

/** The schema's comment: undefined when there is no such schema, null when it has no comment. */
async function schemaComment<DB>(db: Kysely<DB>, schema: string): Promise<string | null | undefined> {
  const r = await sql<{ mark: string | null }>`
    select obj_description(oid, 'pg_namespace') as mark from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
  return r.rows.length === 0 ? undefined : r.rows[0]!.mark;
}

/** Creates the tenant's schema with bvl's mark, in one transaction (a concurrent creator's win is not an error). */
async function createMarkedSchema<DB>(db: Kysely<DB>, tenant: string, schema: string, inTransaction: boolean): Promise<void> {
  const create = async (trx: Kysely<DB>) => {
    await sql`create schema ${sql.id(schema)}`.execute(trx);
    await sql`comment on schema ${sql.id(schema)} is ${ddlLiteral(tenantSchemaMark(tenant))}`.execute(trx);
  };
  if (inTransaction) return create(db);
  try {
    await db.transaction().execute(create);
  } catch (e) {
    // Two first publishes race on creating it: the loser's create fails once the winner commits.
    if ((await schemaComment(db, schema)) === undefined) throw e;
  }
}

/**
 * Makes sure the tenant's schema exists and is bvl's, inside the caller's transaction (the publish
 * calls it under its locks, before any DDL): creates it with bvl's mark when missing; throws
 * {@link ForeignSchemaError} when a schema of that name exists without the mark, so bvl never
 * takes over a schema it did not create.
 */
export async function ensureOwnSchema<DB>(trx: Kysely<DB>, tenant: string): Promise<string> {
  const schema = tenantSchema(tenant);
  const comment = await schemaComment(trx, schema);
  if (comment === undefined) await createMarkedSchema(trx, tenant, schema, true);
  else if (comment !== tenantSchemaMark(tenant)) throw foreign(tenant, schema, comment);
  return schema;
}

function foreign(tenant: string, schema: string, comment: string | null): ForeignSchemaError {
  return new ForeignSchemaError(
    `schema "${schema}" already exists and was not created by bvl for tenant "${tenant}" (${comment === null ? 'it has no bvl mark' : `its comment is ${JSON.stringify(comment.slice(0, 80))}`}), so bvl will not alter it. Drop or rename that schema, or publish to another tenant.`,
  );
}

/**
 * Registers the tenant (and package) and creates the tenant's schema with bvl's mark if there is
 * none; returns the schema name. Idempotent and safe to race. A schema of that name that is not
 * bvl's is left alone here and refused by the publish (see {@link ensureOwnSchema}).
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
  if ((await schemaComment(ctx.db, schema)) === undefined) await createMarkedSchema(ctx.db, scope.tenant, schema, false);
  return schema;
}

/**
 * Drops a tenant: its schema (every published table) when it is bvl's, and its metadata rows. A
 * schema of that name bvl did not create is left in place. Tests clean up with it.
 */
export async function dropTenant(ctx: PlatformContext, tenant: string): Promise<void> {
  checkScope({ tenant });
  const schema = tenantSchema(tenant);
  if ((await schemaComment(ctx.db, schema)) === tenantSchemaMark(tenant)) {
    // A few hundred tables per transaction: one `drop schema … cascade` of thousands of tables takes
    // a lock per table, index and TOAST table at once and runs out of PostgreSQL's lock table (issue 21).
    // One DROP statement names them all: a statement a table cost the server about half again the
    // CPU (600 tables: 0.69 s against 1.06 s), and a round trip each.
    for (;;) {
      const tables = await sql<{ name: string }>`
        select c.relname as name from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${schema} and c.relkind in ('r', 'p') limit ${DROP_TABLES_PER_TRANSACTION}`.execute(ctx.db);
      if (tables.rows.length === 0) break;
      await sql`drop table if exists ${sql.join(tables.rows.map((t) => sql.id(schema, t.name)))} cascade`.execute(ctx.db);
    }
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(ctx.db);
  }
  await ctx.db.deleteFrom('bvl.publish_staging').where('tenant_id', '=', tenant).execute();
  // Packages, metadata items and the publish log go with the tenant row (ON DELETE CASCADE).
  await ctx.db.deleteFrom('bvl.tenants').where('id', '=', tenant).execute();
}
