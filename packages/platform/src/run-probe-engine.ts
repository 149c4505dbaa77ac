import type { DatasetNode } from '@bvl/metadata';
import type { DatasetSelection } from '@bvl/render-contract';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { FindQuery } from './compile-find.ts';
import type { DynamicDatabase, PlatformContext } from './database.ts';
import { describeDbError } from './describe-db-error.ts';
import { identifierProblem, showName, tenantSchema } from './identifier.ts';
import { type DataEngineScope, planDatasetQuery, planFind, type ReadResult, runCompiled } from './run-data-engine.ts';
import { DEFAULT_STATEMENT_TIMEOUT_MS, runReadOnly } from './run-read-only.ts';
import { checkScope } from './scope.ts';

/** A probe's answer: a value, or the failure with the statement that failed (runtime-probes' ProbeOutcome). */
export type ProbeAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string; readonly sql?: string };

/** The platform side of runtime-probes' ProbeEngine port: every call is one read-only transaction. */
export interface PlatformProbeEngine {
  countRows(object: string): Promise<ProbeAnswer<number>>;
  readView(object: string, read: FindQuery): Promise<ProbeAnswer<{ rows: number; sql: string }>>;
  runDataset(dataset: DatasetNode, selection: DatasetSelection): Promise<ProbeAnswer<{ rows: number; sql: string; params: readonly unknown[] }>>;
}

/** Options of {@link createProbeEngine}. */
export interface ProbeEngineOptions extends DataEngineScope {
  /** Statement timeout per probe read (default {@link DEFAULT_STATEMENT_TIMEOUT_MS}). */
  readonly statementTimeoutMs?: number;
}

const fromRead = (r: ReadResult): ProbeAnswer<{ rows: number; sql: string; params: readonly unknown[] }> =>
  r.ok ? { ok: true, value: { rows: r.rows.length, sql: r.sql, params: r.params } } : { ok: false, error: r.error, ...(r.sql ? { sql: r.sql } : {}) };

/**
 * The probe engine over a tenant's published tables: `countRows`, the limit-1 `readView` a
 * renderer does, and `runDataset` with L2's compiled SQL. Reads only, each in its own READ ONLY
 * transaction with a statement timeout; a failure is a value carrying the database's message.
 */
export function createProbeEngine(ctx: PlatformContext, options: ProbeEngineOptions): PlatformProbeEngine {
  checkScope({ tenant: options.tenant });
  const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const guarded = async <T>(fn: (db: Kysely<DynamicDatabase>) => Promise<ProbeAnswer<T>>): Promise<ProbeAnswer<T>> => {
    try {
      return await runReadOnly(ctx, timeout, fn);
    } catch (e) {
      return { ok: false, error: describeDbError(e) };
    }
  };
  return {
    countRows: (object) => {
      const problem = identifierProblem(object);
      if (problem) return Promise.resolve({ ok: false, error: `object ${showName(object)} ${problem}; not counted` });
      return guarded(async (db) => {
        const q = sql<{ n: number }>`select count(*)::int as n from ${sql.id(tenantSchema(options.tenant), object)}`;
        try {
          const r = await q.execute(db);
          return { ok: true, value: r.rows[0]?.n ?? 0 };
        } catch (e) {
          return { ok: false, error: describeDbError(e), sql: q.compile(db).sql };
        }
      });
    },
    readView: (object, read) => {
      const plan = planFind(options, object, read);
      if (!plan.ok) return Promise.resolve(plan);
      return guarded(async (db) => fromRead(await runCompiled(db, plan.query)));
    },
    runDataset: (dataset, selection) => {
      const plan = planDatasetQuery(options, dataset, selection);
      if (!plan.ok) return Promise.resolve({ ok: false, error: plan.error });
      return guarded(async (db) => fromRead(await runCompiled(db, CompiledQuery.raw(plan.compiled.sql, plan.compiled.params))));
    },
  };
}
