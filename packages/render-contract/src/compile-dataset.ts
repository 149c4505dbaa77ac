import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { type DatasetNode, type Graph, pointer } from '@bvl/metadata';
import type { CompiledDataset, CompileOptions, CompileProblem, DatasetSelection } from './dataset-plan.ts';
import { planDataset } from './dataset-planner.ts';

/** What compiling a dataset gives: the query, or the issues that stop it. */
export type CompileResult = { ok: true; compiled: CompiledDataset } | { ok: false; issues: BuildIssue[] };

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
