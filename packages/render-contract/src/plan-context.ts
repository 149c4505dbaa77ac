import type { DatasetNode, ObjectNode } from '@bvl/metadata';
import type { ColumnRef, FilterContext, Segment } from './compile-filter.ts';
import type { CompileProblem, ProblemOrigin } from './dataset-plan.ts';
import type { DeferredSql } from './deferred-sql.ts';

// What the parts of a dataset plan (plan-dimension.ts, plan-joins.ts, plan-measure.ts) need from
// the planner that calls them (dataset-planner.ts): the planner implements it, the parts take it.

/** A measure's SQL (built when called, once) and how many aggregate terms it expands to (derived measures add theirs up). */
export interface PlannedMeasure {
  readonly sql: DeferredSql;
  readonly terms: number;
}

/** How a field path is mentioned: whose it is (for messages), where, and whether a patch may replace the value there. */
export interface Mention {
  readonly origin: ProblemOrigin;
  readonly at: readonly Segment[];
  readonly who: string;
  readonly patchable: boolean;
}

/** What planning a measure or a dimension needs from the planner: the dataset, field resolution and problem reporting. */
export interface PlanContext {
  readonly dataset: DatasetNode;
  /** `dataset "name"`, for messages. */
  readonly label: string;
  readonly base: ObjectNode | undefined;
  /** Measures compiled so far (null: failed, or being compiled). */
  readonly measureSql: Map<string, PlannedMeasure | null>;
  indexOf(kind: 'measures' | 'dimensions', name: string): number;
  problem(
    origin: ProblemOrigin,
    at: readonly Segment[],
    message: string,
    fix: string,
    extra?: Partial<Pick<CompileProblem, 'suggestions' | 'ref' | 'patch' | 'reportedByL1'>>,
  ): void;
  /** Resolves a field path on the base object or a declared include; reports and returns undefined when it cannot. */
  column(path: string, m: Mention): ColumnRef | undefined;
  filterContext(origin: ProblemOrigin, prefix: readonly Segment[], who: string): FilterContext;
}
