import type { DatasetNode } from '@bvl/metadata';
import type { DatasetSelection } from '@bvl/render-contract';
import { CompiledQuery, sql } from 'kysely';
import type { FindQuery } from './compile-find.ts';
import { describeDbError } from './describe-db-error.ts';
import { identifierProblem, showName, tenantSchema } from './identifier.ts';
import { type DataEngineScope, planDatasetQuery, planFind } from './run-data-engine.ts';
import { DEFAULT_STATEMENT_TIMEOUT_MS, type ReadOnlyContext, readOnlyQuery } from './run-read-only.ts';
import { checkScope } from './scope.ts';

/** A probe's answer: a value, or the failure with the statement that failed (runtime-probes' ProbeOutcome). */
export type ProbeAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string; readonly sql?: string };

/** The platform side of runtime-probes' ProbeEngine port: every call is one read-only statement. */
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

/**
 * The probe engine over a tenant's published tables: `countRows`, the limit-1 `readView` a
 * renderer does, and `runDataset` with L2's compiled SQL. Reads only, each one read-only statement
 * with a statement timeout (on PostgreSQL one round trip on a read-only session, see
 * readOnlyQuery); a failure is a value carrying the database's message.
 */
export function createProbeEngine(ctx: ReadOnlyContext, options: ProbeEngineOptions): PlatformProbeEngine {
  checkScope({ tenant: options.tenant });
  const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  // A failing statement aborts its transaction, so errors are caught outside it (the read-only
  // transaction rolls back) and become values carrying the statement that failed.
  const read = async (query: CompiledQuery): Promise<ProbeAnswer<{ rows: number; sql: string; params: readonly unknown[] }>> => {
    try {
      const result = await readOnlyQuery(ctx, timeout, query);
      return { ok: true, value: { rows: result.rows.length, sql: query.sql, params: query.parameters } };
    } catch (e) {
      return { ok: false, error: describeDbError(e), sql: query.sql };
    }
  };
  return {
    countRows: async (object) => {
      const problem = identifierProblem(object);
      if (problem) return { ok: false, error: `object ${showName(object)} ${problem}; not counted` };
      const query = sql<{ n: number }>`select count(*)::int as n from ${sql.id(tenantSchema(options.tenant), object)}`.compile(ctx.db);
      try {
        const result = await readOnlyQuery(ctx, timeout, query);
        return { ok: true, value: result.rows[0]?.n ?? 0 };
      } catch (e) {
        return { ok: false, error: describeDbError(e), sql: query.sql };
      }
    },
    readView: async (object, view) => {
      const plan = planFind(options, object, view);
      return plan.ok ? read(plan.query) : plan;
    },
    runDataset: async (dataset, selection) => {
      const plan = planDatasetQuery(options, dataset, selection);
      return plan.ok ? read(CompiledQuery.raw(plan.compiled.sql, plan.compiled.params)) : { ok: false, error: plan.error };
    },
  };
}
