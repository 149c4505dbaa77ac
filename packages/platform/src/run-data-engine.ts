import type { BuildIssue } from '@bvl/build-issue';
import type { DatasetNode, Graph } from '@bvl/metadata';
import { type CompiledDataset, compileDataset, type DatasetSelection } from '@bvl/render-contract';
import { CompiledQuery, type Kysely } from 'kysely';
import { compileFind, type FindQuery } from './compile-find.ts';
import type { DynamicDatabase, PlatformContext } from './database.ts';
import { describeDbError } from './describe-db-error.ts';
import { tenantSchema } from './identifier.ts';
import { checkScope } from './scope.ts';

/** Rows of a read, or the reason it failed; `sql` is the statement that ran (or would have). */
export type ReadResult =
  | { readonly ok: true; readonly rows: Record<string, unknown>[]; readonly sql: string; readonly params: readonly unknown[] }
  | { readonly ok: false; readonly error: string; readonly sql?: string; readonly params?: readonly unknown[]; readonly issues?: BuildIssue[] };

/** Reads a tenant's published data: list reads as views do them, dataset queries as widgets do them. */
export interface DataEngine {
  /** A list read of an object (columns, view filter operators, sort, limit). */
  find(object: string, query: FindQuery): Promise<ReadResult>;
  /** A dataset query: exactly the SQL of L2's `compileDataset`, run on the tenant schema. */
  queryDataset(dataset: string | DatasetNode, selection?: DatasetSelection): Promise<ReadResult>;
}

/** Where a data engine reads: the tenant, and the published graph its metadata comes from. */
export interface DataEngineScope {
  readonly tenant: string;
  readonly graph: Graph;
}

/** Compiles a find for the tenant's schema (pure step of {@link DataEngine.find}). */
export function planFind(scope: DataEngineScope, object: string, query: FindQuery): { ok: true; query: CompiledQuery } | { ok: false; error: string } {
  return compileFind(tenantSchema(scope.tenant), object, scope.graph.objects.get(object), query);
}

/** Compiles a dataset query with L2's compiler for the tenant's schema. */
export function planDatasetQuery(
  scope: DataEngineScope,
  dataset: string | DatasetNode,
  selection?: DatasetSelection,
): { ok: true; compiled: CompiledDataset } | { ok: false; error: string; issues?: BuildIssue[] } {
  const node = typeof dataset === 'string' ? scope.graph.datasets.get(dataset) : dataset;
  if (!node) return { ok: false, error: `dataset "${String(dataset)}" is not published` };
  const result = compileDataset(node, scope.graph, selection, { schema: tenantSchema(scope.tenant) });
  if (!result.ok)
    return { ok: false, error: `dataset "${node.name}" does not compile: ${result.issues.map((i) => i.message).join(' ')}`, issues: result.issues };
  return result;
}

/** Runs a compiled statement; a database error becomes a value with its clean message. */
export async function runCompiled(db: Kysely<DynamicDatabase>, query: CompiledQuery): Promise<ReadResult> {
  try {
    const result = await db.executeQuery<Record<string, unknown>>(query);
    return { ok: true, rows: result.rows, sql: query.sql, params: query.parameters };
  } catch (e) {
    return { ok: false, error: describeDbError(e), sql: query.sql, params: query.parameters };
  }
}

/** A data engine on the tenant's published tables. */
export function createDataEngine(ctx: PlatformContext, scope: DataEngineScope): DataEngine {
  checkScope({ tenant: scope.tenant });
  const db = ctx.db as unknown as Kysely<DynamicDatabase>;
  return {
    async find(object, query) {
      const plan = planFind(scope, object, query);
      return plan.ok ? runCompiled(db, plan.query) : plan;
    },
    async queryDataset(dataset, selection) {
      const plan = planDatasetQuery(scope, dataset, selection);
      return plan.ok ? runCompiled(db, CompiledQuery.raw(plan.compiled.sql, plan.compiled.params)) : plan;
    },
  };
}
