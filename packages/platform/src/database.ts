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
  /** A draft that retires the published artifact of its slot. */
  tombstone: ColumnType<boolean, boolean | undefined, boolean>;
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

/** `bvl.probe_results`: the L3 result of one publish. */
export interface ProbeResultsTable {
  publish_id: number;
  tenant_id: string;
  package: string;
  issues: Json;
  report: Json;
  error_count: number;
  probed_at: ColumnType<Date, string, never>;
}

/** Whether a build session still takes repair rounds. */
export type SessionStatus = 'open' | 'stopped';

/** `bvl.build_sessions`: one agent build of a package towards a goal, with its bounds. */
export interface BuildSessionsTable {
  id: string;
  tenant_id: string;
  package: string;
  goal: string;
  status: SessionStatus;
  stop_reason: string | null;
  bounds: Json;
  rounds: ColumnType<number, number | undefined, number>;
  tokens_in: ColumnType<number, number | undefined, number>;
  tokens_out: ColumnType<number, number | undefined, number>;
  cost_usd: ColumnType<number, number | undefined, number>;
  published_at: ColumnType<Date | null, string | null | undefined, string | null>;
  created_at: ColumnType<Date, string, never>;
  updated_at: ColumnType<Date, string, string>;
}

/** `bvl.build_rounds`: one verification (or publish) round of a session. */
export interface BuildRoundsTable {
  session_id: string;
  round: number;
  kind: 'verify' | 'publish';
  draft_hash: string;
  fingerprints: Json;
  error_count: number;
  warning_count: number;
  issues: Json;
  diff: Json;
  fixes: Json;
  stop_reason: string | null;
  tokens_in: ColumnType<number, number | undefined, number>;
  tokens_out: ColumnType<number, number | undefined, number>;
  cost_usd: ColumnType<number, number | undefined, number>;
  duration_ms: number;
  created_at: ColumnType<Date, string, never>;
}

/** `bvl.api_tokens`: an HTTP API bearer token of one tenant; only the sha256 of its secret is stored. */
export interface ApiTokensTable {
  id: string;
  tenant_id: string;
  secret_hash: string;
  label: ColumnType<string, string | undefined, string>;
  created_at: ColumnType<Date, string, never>;
  revoked_at: ColumnType<Date | null, string | null | undefined, string | null>;
}

/** The `bvl` schema as kysely sees it (tables are schema-qualified). */
export interface BvlDatabase {
  'bvl.tenants': TenantsTable;
  'bvl.packages': PackagesTable;
  'bvl.metadata_items': MetadataItemsTable;
  'bvl.publish_log': PublishLogTable;
  'bvl.probe_results': ProbeResultsTable;
  'bvl.build_sessions': BuildSessionsTable;
  'bvl.build_rounds': BuildRoundsTable;
  'bvl.api_tokens': ApiTokensTable;
}

/** Which engine is behind the dialect; only messages and docs differ. */
export type EngineKind = 'pglite' | 'postgres';

/** What every platform function takes: the database, the clock, and which engine runs. */
export interface PlatformContext {
  readonly db: Kysely<BvlDatabase>;
  readonly now: () => Date;
  readonly engine: EngineKind;
  /**
   * When `db` is one pinned connection (withPackageLock), the pool it came from: what a publish
   * records after its commit goes through it when the pinned connection is lost.
   */
  readonly pool?: Kysely<BvlDatabase> | undefined;
}

/** Tenant tables: named by object, columns by field; their types are not known statically. */
export type DynamicDatabase = Record<string, Record<string, unknown>>;
