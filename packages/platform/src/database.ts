import type { ColumnType, Generated, Kysely } from 'kysely';

/** State of a metadata item: a staged draft or the published (active) version. */
export type ItemState = 'draft' | 'active';

/** jsonb columns: read as parsed JSON, written as JSON text (so pg and PGlite agree). */
export type Json = ColumnType<unknown, string, string>;

/** `bvl.tenants`: one row per tenant; its objects live in schema `schema_name`. */
export interface TenantsTable {
  id: string;
  schema_name: string;
  created_at: ColumnType<Date, string | undefined, never>;
}

/** `bvl.packages`: the packages a tenant has staged or published. */
export interface PackagesTable {
  tenant_id: string;
  name: string;
  created_at: ColumnType<Date, string | undefined, never>;
}

/** `bvl.metadata_items`: one row per (tenant, package, type, name, state). */
export interface MetadataItemsTable {
  id: Generated<string>;
  tenant_id: string;
  package: string;
  type: string;
  name: string;
  state: ItemState;
  body: Json;
  source: Json;
  content_hash: string;
  version: number;
  updated_at: ColumnType<Date, string, string>;
}

/** `bvl.publish_log`: one row per publish that promoted something; seeds are filled in after. */
export interface PublishLogTable {
  id: Generated<number>;
  tenant_id: string;
  package: string;
  outcome: string;
  published: Json;
  seed_applied: ColumnType<unknown, string | null | undefined, string | null>;
  published_at: ColumnType<Date, string, never>;
}

/** The `bvl` schema as kysely sees it (tables are schema-qualified). */
export interface BvlDatabase {
  'bvl.tenants': TenantsTable;
  'bvl.packages': PackagesTable;
  'bvl.metadata_items': MetadataItemsTable;
  'bvl.publish_log': PublishLogTable;
}

/** Which engine is behind the dialect; only messages and docs differ. */
export type EngineKind = 'pglite' | 'postgres';

/** What every platform function takes: the database, the clock, and which engine runs. */
export interface PlatformContext {
  readonly db: Kysely<BvlDatabase>;
  readonly now: () => Date;
  readonly engine: EngineKind;
}

/** Tenant tables: named by object, columns by field; their types are not known statically. */
export type DynamicDatabase = Record<string, Record<string, unknown>>;
