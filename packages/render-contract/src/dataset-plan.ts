import type { JsonPatchOp } from '@bvl/build-issue';
import type { Segment } from './compile-filter.ts';

// The vocabulary of planning a dataset query, shared by the compiler's entry points
// (compile-dataset.ts), the planner (dataset-planner.ts) and its parts (plan-*.ts, emit-sql.ts).

/** The date buckets a dimension (or a selection) can ask for. */
export type DateGranularity = 'day' | 'week' | 'month' | 'quarter' | 'year';

/** What a caller asks of a dataset: by default all its dimensions and all its measures. */
export interface DatasetSelection {
  measures?: string[];
  dimensions?: string[];
  filter?: Record<string, unknown>;
  limit?: number;
  /**
   * The bucket size for every selected date dimension (a widget's `options.dateGranularity`); it
   * overrides each dimension's own (ObjectStack `resolveDimensionGranularity`: the presentation's choice).
   */
  dateGranularity?: DateGranularity;
  /** ORDER BY selected dimensions or measures, in key order (a widget's `options.sortBy`/`sortOrder`). */
  order?: Record<string, 'asc' | 'desc'>;
}

/** One compiled query: Postgres SQL with `$n` parameters, and its output columns in order. */
export interface CompiledDataset {
  sql: string;
  params: unknown[];
  columns: Array<{ name: string; kind: 'dimension' | 'measure' }>;
}

/** Compile options: the Postgres schema holding the object tables (unqualified when absent). */
export interface CompileOptions {
  schema?: string;
}

/** Include paths join at most this many to-one hops (ADR-0071). */
export const MAX_INCLUDE_HOPS = 3;
/** Derived measures may nest this deep, and expand to at most this many aggregate terms. */
export const MAX_DERIVED_DEPTH = 32;
export const MAX_DERIVED_TERMS = 10_000;

/** Where a compile problem comes from: the dataset body, the selection's names/limit, or the selection's filter. */
export type ProblemOrigin = 'dataset' | 'selection' | 'selection-filter';

/** A compile problem before it becomes an issue; `at` is relative to the dataset body or to the selection filter. */
export interface CompileProblem {
  readonly origin: ProblemOrigin;
  readonly at: readonly Segment[];
  readonly message: string;
  readonly fix: string;
  readonly suggestions?: string[];
  readonly ref?: { type: string; name: string; member?: string };
  readonly patch?: JsonPatchOp[];
  /**
   * An undotted dimension/measure field the base object lacks: L1 reports it (unknown_field, same
   * path), so the render check leaves it out; a standalone compile still fails on it.
   */
  readonly reportedByL1?: boolean;
}

/** The planner's verdict: the problems found, and (when there are none) a function that emits the SQL. */
export interface DatasetPlan {
  readonly problems: readonly CompileProblem[];
  readonly emit?: () => CompiledDataset;
}
