import { type BuildIssue, type JsonPatchOp, makeIssue } from '@bvl/build-issue';
import { type DatasetNode, type Graph, pointer } from '@bvl/metadata';
import type { Segment } from './compile-filter.ts';
import { DatasetPlanner } from './dataset-planner.ts';

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

export type CompileResult = { ok: true; compiled: CompiledDataset } | { ok: false; issues: BuildIssue[] };

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

/**
 * THE dataset compiler: a dataset and a selection become one Postgres query (L3 executes exactly
 * this), with ObjectStack's analytics semantics: base object table, `include` paths as to-one LEFT
 * JOINs, dimensions (date_trunc for a date dimension's `dateGranularity`, or the selection's),
 * measures (count/count_distinct/sum/avg/min/max, a `sum` with no rows is 0, measure `filter`,
 * `derived` arithmetic over the filled values), the dataset's and the selection's Mongo-style
 * filters, GROUP BY the dimensions, ORDER BY the selection's order or the first dimension, LIMIT.
 * Identifiers are validated and quoted, values are parameters. Every problem is a
 * `dataset_compile_error` on the dataset; pure and total.
 */
export function compileDataset(dataset: DatasetNode, graph: Graph, selection?: DatasetSelection, options?: CompileOptions): CompileResult {
  const plan = planDataset(dataset, graph, selection, options);
  if (plan.emit) return { ok: true, compiled: plan.emit() };
  return { ok: false, issues: plan.problems.map((p) => problemIssue(dataset, p)) };
}

/** A compile problem as a `dataset_compile_error` on the dataset (selection problems carry no path: they are not in its body). */
export function problemIssue(dataset: DatasetNode, p: CompileProblem): BuildIssue {
  return makeIssue({
    code: 'dataset_compile_error',
    artifact: { type: 'dataset', name: dataset.name },
    ...(p.ref ? { ref: p.ref } : {}),
    message: p.message,
    fix: p.fix,
    ...(p.origin === 'dataset' ? { path: pointer(...p.at) } : {}),
    draft: dataset.draft,
    ...(p.suggestions?.length ? { suggestions: p.suggestions } : {}),
    ...(p.patch && p.origin === 'dataset' ? { patch: p.patch } : {}),
  });
}

/**
 * Resolves and checks everything `compileDataset` would, without emitting SQL unless asked.
 * `selectionFilterLabel` names the selection's filter in messages (e.g. the widget it came from).
 */
export function planDataset(
  dataset: DatasetNode,
  graph: Graph,
  selection?: DatasetSelection,
  options?: CompileOptions,
  selectionFilterLabel?: string,
): DatasetPlan {
  return new DatasetPlanner(dataset, graph).plan(selection, options, selectionFilterLabel);
}
