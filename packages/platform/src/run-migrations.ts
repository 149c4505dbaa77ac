import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { BvlDatabase } from './database.ts';

/**
 * The `bvl` schema's migrations, in code (no files to ship). Append new ones; never edit one that
 * has run. Kysely's Migrator runs them in name order under its own lock.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_metadata_store': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .withSchema('bvl')
        .createTable('tenants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('schema_name', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .withSchema('bvl')
        .createTable('packages')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('bvl.tenants.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('packages_pk', ['tenant_id', 'name'])
        .execute();
      await db.schema
        .withSchema('bvl')
        .createTable('metadata_items')
        .addColumn('id', 'text', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()::text`))
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('package', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('draft', 'active')`))
        .addColumn('body', 'jsonb', (c) => c.notNull())
        .addColumn('source', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn('content_hash', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addForeignKeyConstraint('metadata_items_package_fk', ['tenant_id', 'package'], 'bvl.packages', ['tenant_id', 'name'], (fk) => fk.onDelete('cascade'))
        .addUniqueConstraint('metadata_items_slot', ['tenant_id', 'package', 'type', 'name', 'state'])
        .execute();
      await db.schema.withSchema('bvl').createIndex('metadata_items_by_state').on('metadata_items').columns(['tenant_id', 'state', 'type', 'name']).execute();
      await db.schema
        .withSchema('bvl')
        .createTable('publish_log')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('package', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('published', 'jsonb', (c) => c.notNull())
        .addColumn('seed_applied', 'jsonb')
        .addColumn('published_at', 'timestamptz', (c) => c.notNull())
        .addForeignKeyConstraint('publish_log_package_fk', ['tenant_id', 'package'], 'bvl.packages', ['tenant_id', 'name'], (fk) => fk.onDelete('cascade'))
        .execute();
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings schema `bvl` to the latest migration; throws (with the failing migration's cause) if one fails. */
export async function migrateToLatest(db: Kysely<BvlDatabase>): Promise<void> {
  const migrator = new Migrator({ db, provider, migrationTableSchema: 'bvl' });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? '(lock or bookkeeping)'} failed: ${(error as Error).message ?? String(error)}`, { cause: error });
  }
}
