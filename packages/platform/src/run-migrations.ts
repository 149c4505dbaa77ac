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
  '0002_build_loop': {
    async up(db: Kysely<unknown>) {
      // A draft can retire a published artifact: a tombstone row (no body) in the artifact's slot.
      await db.schema
        .withSchema('bvl')
        .alterTable('metadata_items')
        .addColumn('tombstone', 'boolean', (c) => c.notNull().defaultTo(false))
        .execute();
      // The L3 result of each publish, so verify_build can report the latest one.
      await db.schema
        .withSchema('bvl')
        .createTable('probe_results')
        .addColumn('publish_id', 'bigint', (c) => c.primaryKey().references('bvl.publish_log.id').onDelete('cascade'))
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('package', 'text', (c) => c.notNull())
        .addColumn('issues', 'jsonb', (c) => c.notNull())
        .addColumn('report', 'jsonb', (c) => c.notNull())
        .addColumn('error_count', 'integer', (c) => c.notNull())
        .addColumn('probed_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.withSchema('bvl').createIndex('probe_results_by_package').on('probe_results').columns(['tenant_id', 'package', 'publish_id']).execute();
      // Build sessions: the repair loop's bounds, enforced here rather than in an agent's prompt.
      await db.schema
        .withSchema('bvl')
        .createTable('build_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('package', 'text', (c) => c.notNull())
        .addColumn('goal', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('open', 'stopped')`))
        .addColumn('stop_reason', 'text')
        .addColumn('bounds', 'jsonb', (c) => c.notNull())
        .addColumn('rounds', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('tokens_in', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('tokens_out', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
        .addColumn('published_at', 'timestamptz')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .addForeignKeyConstraint('build_sessions_package_fk', ['tenant_id', 'package'], 'bvl.packages', ['tenant_id', 'name'], (fk) => fk.onDelete('cascade'))
        .execute();
      await db.schema.withSchema('bvl').createIndex('build_sessions_by_package').on('build_sessions').columns(['tenant_id', 'package', 'created_at']).execute();
      await db.schema
        .withSchema('bvl')
        .createTable('build_rounds')
        .addColumn('session_id', 'text', (c) => c.notNull().references('bvl.build_sessions.id').onDelete('cascade'))
        .addColumn('round', 'integer', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('verify', 'publish')`))
        .addColumn('draft_hash', 'text', (c) => c.notNull())
        .addColumn('fingerprints', 'jsonb', (c) => c.notNull())
        .addColumn('error_count', 'integer', (c) => c.notNull())
        .addColumn('warning_count', 'integer', (c) => c.notNull())
        .addColumn('issues', 'jsonb', (c) => c.notNull())
        .addColumn('diff', 'jsonb', (c) => c.notNull())
        .addColumn('fixes', 'jsonb', (c) => c.notNull())
        .addColumn('stop_reason', 'text')
        .addColumn('tokens_in', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('tokens_out', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('build_rounds_pk', ['session_id', 'round'])
        .execute();
    },
  },
  '0003_api_tokens': {
    async up(db: Kysely<unknown>) {
      // Bearer tokens of the HTTP API, one tenant each. Only a hash is kept: the token is shown once.
      await db.schema
        .withSchema('bvl')
        .createTable('api_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('bvl.tenants.id').onDelete('cascade'))
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('revoked_at', 'timestamptz')
        .execute();
      await db.schema.withSchema('bvl').createIndex('api_tokens_by_tenant').on('api_tokens').column('tenant_id').execute();
    },
  },
  '0004_publish_safety': {
    async up(db: Kysely<unknown>) {
      // Never-raising parsers: a republish that changes a field's type counts the rows that would
      // not convert (instead of failing the DDL on the first one), and converts with them when
      // allowed. PL/pgSQL, so they run on PostgreSQL 15 (no pg_input_is_valid) and on PGlite.
      for (const [name, type] of Object.entries(TRY_PARSERS)) {
        await sql`create or replace function ${sql.id('bvl', name)}(v text) returns ${sql.raw(type)} language plpgsql stable as $$
          begin return v::${sql.raw(type)}; exception when others then return null; end $$`.execute(db);
      }
      // A tenant schema is bvl's when it carries bvl's mark (set when bvl creates it). The schemas of
      // tenants registered before the mark existed were created by bvl: mark them.
      await sql`do $$ declare r record; begin
          for r in select t.id, t.schema_name from bvl.tenants t join pg_catalog.pg_namespace n on n.nspname = t.schema_name
                   where obj_description(n.oid, 'pg_namespace') is null loop
            execute format('comment on schema %I is %L', r.schema_name, 'bvl:tenant:' || r.id);
          end loop;
        end $$`.execute(db);
    },
  },
  '0005_ai_evals': {
    async up(db: Kysely<unknown>) {
      // L5: golden cases by content version, one batch per suite run, one row per attempt.
      await db.schema
        .withSchema('bvl')
        .createTable('ai_eval_cases')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('assertions', 'jsonb', (c) => c.notNull())
        .addColumn('tags', 'jsonb', (c) => c.notNull())
        // The whole case (case.json and blueprint), so a worker on another machine runs exactly this version.
        .addColumn('content', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('ai_eval_cases_pk', ['name', 'version'])
        .execute();
      await db.schema
        .withSchema('bvl')
        .createTable('ai_eval_batches')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('suite', 'text', (c) => c.notNull())
        .addColumn('agent', 'text', (c) => c.notNull())
        .addColumn('model', 'text')
        .addColumn('endpoint', 'text')
        .addColumn('git_commit', 'text')
        .addColumn('epochs', 'integer', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('plan', 'jsonb', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('running', 'queued', 'finished')`))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('heartbeat_at', 'timestamptz', (c) => c.notNull())
        .addColumn('finished_at', 'timestamptz')
        .execute();
      await db.schema.withSchema('bvl').createIndex('ai_eval_batches_by_suite').on('ai_eval_batches').columns(['suite', 'agent', 'id']).execute();
      await db.schema
        .withSchema('bvl')
        .createTable('ai_eval_runs')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('batch_id', 'bigint', (c) => c.notNull().references('bvl.ai_eval_batches.id').onDelete('cascade'))
        .addColumn('case_name', 'text', (c) => c.notNull())
        .addColumn('case_version', 'text', (c) => c.notNull())
        .addColumn('variant', 'text', (c) => c.notNull())
        .addColumn('epoch', 'integer', (c) => c.notNull())
        .addColumn('agent', 'text', (c) => c.notNull())
        .addColumn('model', 'text')
        .addColumn('endpoint', 'text')
        .addColumn('git_commit', 'text')
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pass', 'fail', 'error', 'limit')`))
        .addColumn('failure_reason', 'text')
        .addColumn('repair_rounds', 'integer')
        .addColumn('stop_reason', 'text')
        .addColumn('error_count', 'integer', (c) => c.notNull())
        .addColumn('fingerprints', 'jsonb', (c) => c.notNull())
        .addColumn('assertions', 'jsonb', (c) => c.notNull())
        .addColumn('issues', 'jsonb', (c) => c.notNull())
        .addColumn('evidence', 'jsonb')
        .addColumn('tokens_in', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('tokens_out', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('worker', 'text', (c) => c.notNull())
        .addColumn('started_at', 'timestamptz', (c) => c.notNull())
        .addColumn('finished_at', 'timestamptz', (c) => c.notNull())
        .addUniqueConstraint('ai_eval_runs_attempt', ['batch_id', 'case_name', 'variant', 'epoch'])
        .execute();
      await db.schema.withSchema('bvl').createIndex('ai_eval_runs_by_case').on('ai_eval_runs').columns(['case_name', 'variant', 'batch_id']).execute();
      await db.schema.withSchema('bvl').createIndex('ai_eval_runs_by_status').on('ai_eval_runs').columns(['batch_id', 'status']).execute();
    },
  },
  '0006_ai_eval_matrix': {
    async up(db: Kysely<unknown>) {
      // L5 for a team: a batch runs a matrix of subjects (agent × model) over prompt variants; an
      // attempt keeps every try, its session's rounds and card past its tenant, and the intent review.
      await db.schema
        .withSchema('bvl')
        .alterTable('ai_eval_batches')
        .addColumn('subjects', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
        .addColumn('defects', 'text')
        .addColumn('judge', 'text')
        .execute();
      await sql`update bvl.ai_eval_batches set subjects = jsonb_build_array(jsonb_build_object('agent', agent, 'model', model, 'endpoint', endpoint))`.execute(
        db,
      );
      await db.schema
        .withSchema('bvl')
        .alterTable('ai_eval_runs')
        .addColumn('subject', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('prompt_variant', 'text', (c) => c.notNull().defaultTo('default'))
        .addColumn('expected', 'text', (c) => c.notNull().defaultTo('pass'))
        .addColumn('tries', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
        .addColumn('session', 'jsonb')
        .addColumn('card', 'jsonb')
        .addColumn('review', 'jsonb')
        .addColumn('judge_tokens_in', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('judge_tokens_out', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('judge_cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update bvl.ai_eval_runs set subject = agent || coalesce('@' || model, '')`.execute(db);
      await db.schema.withSchema('bvl').alterTable('ai_eval_runs').dropConstraint('ai_eval_runs_attempt').execute();
      await db.schema
        .withSchema('bvl')
        .alterTable('ai_eval_runs')
        .addUniqueConstraint('ai_eval_runs_attempt', ['batch_id', 'case_name', 'variant', 'prompt_variant', 'subject', 'epoch'])
        .execute();
    },
  },
  '0007_tenant_policy': {
    async up(db: Kysely<unknown>) {
      // A tenant's server policy (sessions required, default and maximum bounds, the window its
      // packages' sessions share); no row: the server's default policy.
      await db.schema
        .withSchema('bvl')
        .createTable('tenant_policies')
        .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('bvl.tenants.id').onDelete('cascade'))
        .addColumn('policy', 'jsonb', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .execute();
      // The window rule reads a package's recent sessions; expiry sweeps open ones by last touch.
      await db.schema.withSchema('bvl').createIndex('build_sessions_open').on('build_sessions').columns(['status', 'updated_at']).execute();
    },
  },
  '0008_session_transcripts': {
    async up(db: Kysely<unknown>) {
      // Every turn of a build, kept with its session (issue 18). No foreign key to the session: an
      // eval attempt's tenant is dropped after it ran, and its transcript must outlive it.
      await db.schema
        .withSchema('bvl')
        .createTable('build_transcripts')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('turn', 'integer', (c) => c.notNull())
        .addColumn('stage', 'text', (c) => c.notNull().check(sql`stage in ('build', 'review')`))
        .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('system', 'user', 'assistant')`))
        .addColumn('content', 'text')
        .addColumn('tool_calls', 'jsonb', (c) => c.notNull())
        .addColumn('tokens_in', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('tokens_out', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('tokens_cached', 'integer')
        .addColumn('tokens_reasoning', 'integer')
        .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('ms', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('chars', 'integer', (c) => c.notNull())
        .addColumn('condensed', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('build_transcripts_pk', ['session_id', 'turn'])
        .execute();
      await db.schema.withSchema('bvl').createIndex('build_transcripts_by_tenant').on('build_transcripts').columns(['tenant_id', 'session_id']).execute();
      // The intent review's verdict with the round it judged, and its spend apart from the build's.
      await db.schema.withSchema('bvl').alterTable('build_rounds').addColumn('review', 'jsonb').execute();
      await db.schema
        .withSchema('bvl')
        .alterTable('build_sessions')
        .addColumn('review_tokens_in', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('review_tokens_out', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('review_cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0009_publish_staging': {
    async up(db: Kysely<unknown>) {
      // What a large publish builds ahead of its switch (issue 21): left-over rows are a failed or
      // killed publish's, and the next publish of the tenant drops what they name.
      await db.schema
        .withSchema('bvl')
        .createTable('publish_staging')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('package', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('table', 'column', 'index')`))
        .addColumn('table_name', 'text', (c) => c.notNull())
        .addColumn('member', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema.withSchema('bvl').createIndex('publish_staging_by_tenant').on('publish_staging').columns(['tenant_id', 'package']).execute();
    },
  },
  '0010_publish_log_by_package': {
    async up(db: Kysely<unknown>) {
      // A package's publishes, newest first (issue 21): the next publish reads its package's latest
      // log row (unfinished seeds), a publish's status is read by package and id, and dropping a
      // tenant deletes its rows through the package's foreign key. Without it each is a scan of
      // every tenant's publishes.
      await db.schema.withSchema('bvl').createIndex('publish_log_by_package').on('publish_log').columns(['tenant_id', 'package', 'id']).execute();
    },
  },
};

/** The `bvl.try_*(text)` parsers migration 0004 creates, and the type each returns (null when the text is not one). */
export const TRY_PARSERS: Readonly<Record<string, string>> = {
  try_numeric: 'numeric',
  try_float8: 'double precision',
  try_boolean: 'boolean',
  try_date: 'date',
  try_timestamptz: 'timestamptz',
  try_time: 'time',
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/**
 * Brings schema `bvl` to the latest migration; throws (with the failing migration's cause) if one
 * fails. When every migration has run (every open after the first), it returns after one small
 * query: kysely's Migrator looks for its table by introspecting every column of every table in the
 * database (over half a second with 10,000 unrelated tables, twice per open).
 */
export async function migrateToLatest(db: Kysely<BvlDatabase>): Promise<void> {
  const ran = await sql<{ name: string }>`select name from bvl.kysely_migration`.execute(db).then(
    (r) => new Set(r.rows.map((row) => row.name)),
    () => new Set<string>(),
  );
  if (Object.keys(MIGRATIONS).every((name) => ran.has(name))) return;
  // Unordered: engineers' branches add migrations in parallel, and a database that ran a later-numbered
  // one first must still accept an earlier one when the branches meet.
  const migrator = new Migrator({ db, provider, migrationTableSchema: 'bvl', allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? '(lock or bookkeeping)'} failed: ${(error as Error).message ?? String(error)}`, { cause: error });
  }
}
