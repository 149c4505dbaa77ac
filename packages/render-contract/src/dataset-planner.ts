import { type DatasetNode, didYouMean, type Graph, type ObjectNode } from '@bvl/metadata';
import { type SqlBool, sql } from 'kysely';
import { type ColumnRef, compileFilter, type FilterContext, type Segment } from './compile-filter.ts';
import type { CompileOptions, CompileProblem, DatasetPlan, DatasetSelection, DateGranularity, ProblemOrigin } from './dataset-plan.ts';
import type { DeferredSql } from './deferred-sql.ts';
import { emitSql } from './emit-sql.ts';
import { isSqlIdentifier } from './pg-sql.ts';
import type { Mention, PlanContext, PlannedMeasure } from './plan-context.ts';
import { planDimension } from './plan-dimension.ts';
import { PlanJoins } from './plan-joins.ts';
import { planMeasure } from './plan-measure.ts';

/** Measure and dimension lists up to this long are scanned for a name's index; a longer one builds a Map. */
const SCAN_UP_TO = 16;
const GRANULARITIES: ReadonlySet<string> = new Set(['day', 'week', 'month', 'quarter', 'year']);
const list = (xs: Iterable<string>): string => [...xs].join(', ') || 'none';
const loc = (at: readonly Segment[]): string => (at.length ? ` at "${at.join('.')}"` : '');

/**
 * Plans one query of a dataset: resolves the base object, the include joins, the selected
 * dimensions and measures (plan-dimension.ts, plan-measure.ts), the filters, the order and the
 * limit, collecting every problem; builds and emits SQL (emit-sql.ts) only when asked and there is none.
 */
export class DatasetPlanner implements PlanContext {
  readonly label: string;
  readonly base: ObjectNode | undefined;
  readonly measureSql = new Map<string, PlannedMeasure | null>();
  private readonly problems: CompileProblem[] = [];
  private readonly joins: PlanJoins;
  private readonly baseAlias: string;
  /** First index of each name, built on the first lookup in a list too long to scan. */
  private index: { measures?: Map<string, number>; dimensions?: Map<string, number> } | undefined;

  constructor(
    readonly dataset: DatasetNode,
    readonly graph: Graph,
  ) {
    this.label = `dataset "${dataset.name}"`;
    const objectName = dataset.object;
    this.base = objectName === undefined ? undefined : graph.objects.get(objectName);
    this.baseAlias = objectName ?? 'base';
    if (objectName === undefined) {
      this.problem(
        'dataset',
        ['object'],
        `Dataset "${dataset.name}" names no base object, so it has no table to read.`,
        `Set "object" of ${this.label} to the object it summarizes.`,
      );
    } else if (!this.base) {
      this.problem(
        'dataset',
        ['object'],
        `Dataset "${dataset.name}" reads object "${objectName}", which does not exist, so it has no table to read.`,
        `Set "object" of ${this.label} to an existing object, or create object "${objectName}".`,
        { suggestions: didYouMean(objectName, graph.objects.keys()) },
      );
    } else if (!isSqlIdentifier(objectName)) {
      this.problem(
        'dataset',
        ['object'],
        `Dataset "${dataset.name}" reads object "${objectName}", whose name is not a usable SQL table name.`,
        'Use a snake_case object name of at most 63 characters.',
      );
    }
    this.joins = new PlanJoins(dataset, graph, this.base, this.baseAlias, this.label, (...args) => this.problem(...args));
  }

  indexOf(kind: 'measures' | 'dimensions', name: string): number {
    const list: ReadonlyArray<{ readonly name: string }> = this.dataset.def[kind];
    if (list.length <= SCAN_UP_TO) {
      for (let i = 0; i < list.length; i++) if (list[i]!.name === name) return i;
      return 0;
    }
    this.index ??= {};
    let index = this.index[kind];
    if (!index) {
      index = new Map();
      for (let i = 0; i < list.length; i++) if (!index.has(list[i]!.name)) index.set(list[i]!.name, i);
      this.index[kind] = index;
    }
    return index.get(name) ?? 0;
  }

  plan(selection: DatasetSelection | undefined, options: CompileOptions | undefined, selectionFilterLabel?: string): DatasetPlan {
    const schema = options?.schema;
    if (schema !== undefined && !isSqlIdentifier(schema)) {
      this.problem(
        'selection',
        [],
        `The schema option "${schema}" for ${this.label} is not a usable SQL schema name.`,
        'Pass a schema name of letters, digits and _ (at most 63 characters).',
      );
    }
    if (this.base) this.joins.planIncludes();

    const granularity = this.granularity(selection?.dateGranularity);
    const dims = this.pick('dimensions', selection?.dimensions, this.dataset.dimensions);
    const measures = this.pick('measures', selection?.measures, this.dataset.measures);
    const selects: Array<{ name: string; kind: 'dimension' | 'measure'; sql: DeferredSql | undefined }> = [];
    for (const name of dims) selects.push({ name, kind: 'dimension', sql: planDimension(this, name, granularity) });
    for (const name of measures) selects.push({ name, kind: 'measure', sql: planMeasure(this, name, [])?.sql });
    this.checkAliases(selects, selection);
    const order = this.order(selection?.order, selects);

    const where: DeferredSql<SqlBool>[] = [];
    // No filter (most datasets): no context to build for it.
    const ownFilter = this.dataset.def.filter;
    const own = ownFilter === undefined ? undefined : compileFilter(ownFilter, this.filterContext('dataset', ['filter'], `The filter of ${this.label}`));
    if (own) where.push(own);
    if (selection?.filter !== undefined) {
      const sel = compileFilter(
        selection.filter,
        this.filterContext('selection-filter', [], selectionFilterLabel ?? `The selection's filter on ${this.label}`),
      );
      if (sel) where.push(sel);
    }
    if (this.problems.length === 0) {
      const scope = this.measureScope(measures);
      if (scope) where.push(scope);
    }
    const limit = selection?.limit;
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0 && limit <= 2_147_483_647)) {
      this.problem(
        'selection',
        [],
        `The selection asks ${this.label} for limit ${String(limit)}, which is not a non-negative integer.`,
        'Pass a whole-number limit, or none.',
      );
    }
    if (selects.length === 0) {
      const what = selection ? 'The selection asks' : `Dataset "${this.dataset.name}" declares`;
      this.problem(
        selection ? 'selection' : 'dataset',
        [],
        `${what} no dimension and no measure, so there is nothing to select.`,
        `Declare (or select) at least one measure of ${this.label}.`,
      );
    }
    if (this.problems.length > 0) return { problems: this.problems };
    const table = (this.base as ObjectNode).name;
    const joins = this.joins.all();
    const alias = this.baseAlias;
    return {
      problems: [],
      emit: () =>
        emitSql({
          table,
          alias,
          joins,
          selects: selects as Array<{ name: string; kind: 'dimension' | 'measure'; sql: DeferredSql }>,
          where,
          order,
          limit,
          schema,
        }),
    };
  }

  /**
   * Which groups a selection shows when every measure it computes carries its own filter: only
   * those where one of the filters admits a row. ObjectStack's executor (service-analytics
   * executeSelection / runMeasurePass) runs the unfiltered measures in one grouped query and each
   * filter-scoped measure in a query of its own under its filter, then merges the groups; with no
   * unfiltered measure there is no query over all rows, so a group no filter reaches is not shown
   * (its engine answers a widget grouped by agent of "open tickets" without the agents that have
   * none). Undefined when some computed measure has no filter (every group shows, as one query).
   */
  private measureScope(selected: readonly string[]): DeferredSql<SqlBool> | undefined {
    const filters: DeferredSql<SqlBool>[] = [];
    const seen = new Set<string>();
    const walk = (name: string): boolean => {
      if (seen.has(name)) return true;
      seen.add(name);
      const def = this.dataset.measures.get(name);
      if (!def) return false;
      if (def.derived) return def.derived.of.every(walk);
      if (def.filter === undefined) return false;
      const i = this.indexOf('measures', name);
      const f = compileFilter(def.filter, this.filterContext('dataset', ['measures', i, 'filter'], `The filter of measure "${name}" of ${this.label}`));
      if (!f) return false;
      filters.push(f);
      return true;
    };
    if (selected.length === 0 || !selected.every(walk) || filters.length === 0) return undefined;
    if (filters.length === 1) return filters[0];
    return () =>
      sql<SqlBool>`(${sql.join(
        filters.map((f) => f()),
        sql` or `,
      )})`;
  }

  problem(
    origin: ProblemOrigin,
    at: readonly Segment[],
    message: string,
    fix: string,
    extra: Partial<Pick<CompileProblem, 'suggestions' | 'ref' | 'patch' | 'reportedByL1'>> = {},
  ): void {
    this.problems.push({ origin, at, message, fix, ...extra });
  }

  /** The selection's date granularity, when it is one of the five buckets (anything else is a selection problem). */
  private granularity(g: unknown): DateGranularity | undefined {
    if (g === undefined) return undefined;
    if (typeof g === 'string' && GRANULARITIES.has(g)) return g as DateGranularity;
    this.problem(
      'selection',
      [],
      `The selection asks ${this.label} for date granularity ${JSON.stringify(g)}, which is not day, week, month, quarter or year.`,
      'Pass day, week, month, quarter or year.',
    );
    return undefined;
  }

  /**
   * The selection's ordering: each key a selected dimension or measure (ObjectStack refuses any other
   * order key, DATASET_INVALID), each direction asc or desc.
   */
  private order(order: unknown, selects: ReadonlyArray<{ name: string }>): Array<readonly [string, 'asc' | 'desc']> | undefined {
    if (order === undefined) return undefined;
    const names = selects.map((s) => s.name);
    if (typeof order !== 'object' || order === null || Array.isArray(order)) {
      this.problem(
        'selection',
        [],
        `The selection's order for ${this.label} is ${JSON.stringify(order)}, not {"<name>": "asc" | "desc"}.`,
        'Pass order as an object of selected names to asc or desc.',
      );
      return undefined;
    }
    const out: Array<readonly [string, 'asc' | 'desc']> = [];
    for (const [key, dir] of Object.entries(order)) {
      if (!names.includes(key) || (dir !== 'asc' && dir !== 'desc')) {
        this.problem(
          'selection',
          [],
          `The selection orders ${this.label} by ${JSON.stringify(key)} ${JSON.stringify(dir)}, but only a selected dimension or measure can order it, asc or desc (selected: ${list(names)}).`,
          'Order by a selected dimension or measure.',
          { suggestions: didYouMean(key, names) },
        );
        continue;
      }
      out.push([key, dir]);
    }
    return out;
  }

  /** The selected names (deduplicated, selection order), reporting names the dataset does not declare. */
  private pick(kind: 'dimensions' | 'measures', requested: unknown, declared: ReadonlyMap<string, unknown>): string[] {
    if (requested === undefined) {
      // forEach, not [...keys()]: the names without an iterator step each.
      const all: string[] = [];
      declared.forEach((_, name) => all.push(name));
      return all;
    }
    if (!Array.isArray(requested)) {
      this.problem(
        'selection',
        [],
        `The selection's ${kind} for ${this.label} is ${JSON.stringify(requested) ?? String(requested)}, not a list of names.`,
        `Pass ${kind} as an array of names.`,
      );
      return [];
    }
    const out: string[] = [];
    for (const name of requested) {
      if (typeof name !== 'string' || !declared.has(name)) {
        const shown = typeof name === 'string' ? `"${name}"` : String(JSON.stringify(name));
        this.problem(
          'selection',
          [],
          `The selection asks ${this.label} for ${kind === 'dimensions' ? 'dimension' : 'measure'} ${shown}, which it does not declare (it has: ${list(declared.keys())}).`,
          `Select one of the ${kind} of ${this.label}, or declare ${shown} there.`,
          {
            suggestions: typeof name === 'string' ? didYouMean(name, declared.keys()) : [],
          },
        );
        continue;
      }
      if (!out.includes(name)) out.push(name);
    }
    return out;
  }

  column(path: string, m: Mention): ColumnRef | undefined {
    return this.joins.column(path, m);
  }

  filterContext(origin: ProblemOrigin, prefix: readonly Segment[], who: string): FilterContext {
    return {
      column: (path, at) => this.column(path, { origin, at: [...prefix, ...at], who: `${who}${loc(at)}`, patchable: false }),
      error: (at, message, fix, suggestions) =>
        this.problem(origin, [...prefix, ...at], `${who}${loc(at)} ${message}.`, fix, suggestions?.length ? { suggestions } : {}),
    };
  }

  /** Output column names must be unique: a dimension and a measure sharing a name would collide. */
  private checkAliases(selects: ReadonlyArray<{ name: string; kind: 'dimension' | 'measure' }>, selection: DatasetSelection | undefined): void {
    const seen = new Set<string>();
    for (const s of selects) {
      if (seen.has(s.name)) {
        const i = this.indexOf('measures', s.name);
        this.problem(
          selection ? 'selection' : 'dataset',
          selection ? [] : ['measures', i, 'name'],
          `${this.label} has a dimension and a measure both named "${s.name}", so the query would return two columns of that name.`,
          `Rename the measure or the dimension "${s.name}" of ${this.label}.`,
        );
      }
      seen.add(s.name);
    }
  }
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
