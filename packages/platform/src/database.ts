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

/**
 * `bvl.publish_staging`: what a large publish built ahead of its switch (a table, a column or an
 * index of the tenant's schema), written before it is built and deleted by the switch that adopts
 * it. A row left over belongs to a publish that failed or was killed: its object is dropped by
 * the next publish of the tenant (see run-stage.ts).
 */
export interface PublishStagingTable {
  id: Generated<number>;
  tenant_id: string;
  package: string;
  kind: 'table' | 'column' | 'index';
  table_name: string;
  /** The column (kind `column`) or index (kind `index`); null for a table. */
  member: string | null;
  created_at: ColumnType<Date, string | undefined, never>;
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
  review_tokens_in: ColumnType<number, number | undefined, number>;
  review_tokens_out: ColumnType<number, number | undefined, number>;
  review_cost_usd: ColumnType<number, number | undefined, number>;
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
  /** The intent review's verdict on this round's build (issue 18), when one ran. */
  review: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: ColumnType<Date, string, never>;
}

/** `bvl.build_transcripts`: one turn of a build's model conversation (redacted, bounded per session). */
export interface BuildTranscriptsTable {
  session_id: string;
  tenant_id: string;
  turn: number;
  stage: 'build' | 'review';
  role: 'system' | 'user' | 'assistant';
  content: string | null;
  tool_calls: Json;
  tokens_in: ColumnType<number, number | undefined, number>;
  tokens_out: ColumnType<number, number | undefined, number>;
  tokens_cached: number | null;
  tokens_reasoning: number | null;
  retries: ColumnType<number, number | undefined, number>;
  ms: ColumnType<number, number | undefined, number>;
  chars: number;
  condensed: ColumnType<boolean, boolean | undefined, boolean>;
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

/** `bvl.ai_eval_cases`: a golden case at one content version. */
export interface AiEvalCasesTable {
  name: string;
  version: string;
  prompt: string;
  assertions: Json;
  tags: Json;
  /** The whole case (case.json and blueprint): what a queued attempt runs. */
  content: Json;
  created_at: ColumnType<Date, string, never>;
}

/** Where a batch of eval attempts stands. */
export type EvalBatchStatus = 'running' | 'queued' | 'finished';

/** `bvl.ai_eval_batches`: one run of a suite by one agent (its attempts are `ai_eval_runs`). */
export interface AiEvalBatchesTable {
  id: Generated<number>;
  suite: string;
  agent: string;
  model: string | null;
  endpoint: string | null;
  git_commit: string | null;
  epochs: number;
  attempts: number;
  /** The planned attempts: case, version and variant per entry (so a resume or a worker knows the whole batch). */
  plan: Json;
  status: EvalBatchStatus;
  created_at: ColumnType<Date, string, never>;
  heartbeat_at: ColumnType<Date, string, string>;
  finished_at: ColumnType<Date | null, string | null | undefined, string | null>;
  /** The subjects under test (agent, model, endpoint each): a matrix runs several in one batch. */
  subjects: ColumnType<unknown, string | undefined, string>;
  /** The defect sets the batch ran (all, fixer, agent, none); null for batches from before it was kept. */
  defects: ColumnType<string | null, string | null | undefined, string | null>;
  /** The judge model of rubric assertions, if any. */
  judge: ColumnType<string | null, string | null | undefined, string | null>;
}

/** How an eval attempt ended. */
export type EvalRunStatus = 'pass' | 'fail' | 'error' | 'limit';

/** `bvl.ai_eval_runs`: one attempt — one (batch, case, variant, epoch). */
export interface AiEvalRunsTable {
  id: Generated<number>;
  batch_id: number;
  case_name: string;
  case_version: string;
  variant: string;
  epoch: number;
  agent: string;
  model: string | null;
  endpoint: string | null;
  git_commit: string | null;
  status: EvalRunStatus;
  failure_reason: string | null;
  repair_rounds: number | null;
  stop_reason: string | null;
  error_count: number;
  /** Issue fingerprints per session round. */
  fingerprints: Json;
  /** Assertion results, each with its evidence. */
  assertions: Json;
  /** The issues that remained when the attempt ended. */
  issues: Json;
  /** Everything graded (see eval-runner's Evidence); null when the attempt never got that far. */
  evidence: ColumnType<unknown, string | null, string | null>;
  tokens_in: ColumnType<number, number | undefined, number>;
  tokens_out: ColumnType<number, number | undefined, number>;
  cost_usd: ColumnType<number, number | undefined, number>;
  latency_ms: number;
  worker: string;
  started_at: ColumnType<Date, string, string>;
  finished_at: ColumnType<Date, string, string>;
  /** The subject that ran it: the agent, and `@model` when it has one. */
  subject: ColumnType<string, string | undefined, string>;
  /** The case's prompt variant (`default`: its own prompt). */
  prompt_variant: ColumnType<string, string | undefined, string>;
  /** The outcome the case expects of this agent (`pass`, or `fail` for a defect set only a model can repair). */
  expected: ColumnType<string, string | undefined, string>;
  /** Earlier tries of this attempt (a resumed `error`, a queue retry), oldest first, each the row it replaced. */
  tries: ColumnType<unknown, string | undefined, string>;
  /** The build session and its rounds (issues per round), kept past the attempt's tenant. */
  session: ColumnType<unknown, string | null | undefined, string | null>;
  /** The build-health card when the attempt ended. */
  card: ColumnType<unknown, string | null | undefined, string | null>;
  /** The intent review's verdict and findings, when the agent ran one. */
  review: ColumnType<unknown, string | null | undefined, string | null>;
  judge_tokens_in: ColumnType<number, number | undefined, number>;
  judge_tokens_out: ColumnType<number, number | undefined, number>;
  judge_cost_usd: ColumnType<number, number | undefined, number>;
}

/** `bvl.tenant_policies`: a tenant's server policy (validated by verify-build's TenantPolicySchema). */
export interface TenantPoliciesTable {
  tenant_id: string;
  policy: Json;
  version: ColumnType<number, number | undefined, number>;
  updated_at: ColumnType<Date, string, string>;
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
  'bvl.build_transcripts': BuildTranscriptsTable;
  'bvl.api_tokens': ApiTokensTable;
  'bvl.ai_eval_cases': AiEvalCasesTable;
  'bvl.ai_eval_batches': AiEvalBatchesTable;
  'bvl.ai_eval_runs': AiEvalRunsTable;
  'bvl.tenant_policies': TenantPoliciesTable;
  'bvl.publish_staging': PublishStagingTable;
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
