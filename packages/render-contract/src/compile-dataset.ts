import { type BuildIssue, type JsonPatchOp, makeIssue } from '@bvl/build-issue';
import {
  allFieldNames,
  clearWinner,
  type DatasetNode,
  didYouMean,
  type Graph,
  type ObjectNode,
  pointer,
  RELATION_TYPES,
  referenceOf,
  resolveField,
} from '@bvl/metadata';
import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { type ColumnRef, compileFilter, type FilterContext, type Segment } from './compile-filter.ts';
import { type AnyDatabase, isSqlIdentifier, PG_COMPILER } from './pg-compiler.ts';

/** What a caller asks of a dataset: by default all its dimensions and all its measures. */
export interface DatasetSelection {
  measures?: string[];
  dimensions?: string[];
  filter?: Record<string, unknown>;
  limit?: number;
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

const NUMERIC = new Set(['number', 'currency', 'percent', 'rating', 'slider', 'progress', 'formula', 'summary']);
const TEMPORAL = new Set(['date', 'datetime', 'formula', 'summary']);
const GRANULARITIES = new Set(['day', 'week', 'month', 'quarter', 'year']);
const AGGREGATE_SQL = { count: 'count', count_distinct: 'count', sum: 'sum', avg: 'avg', min: 'min', max: 'max' } as const;
const DERIVED_OPERATOR = { sum: '+', difference: '-', product: '*' } as const;
const list = (xs: Iterable<string>): string => [...xs].join(', ') || 'none';
const loc = (at: readonly Segment[]): string => (at.length ? ` at "${at.join('.')}"` : '');

/**
 * THE dataset compiler: a dataset and a selection become one Postgres query (L3 executes exactly
 * this). Base object table, `include` paths as to-one LEFT JOINs, dimensions (date_trunc for
 * `dateGranularity`), measures (count/count_distinct/sum/avg/min/max, measure `filter`, `derived`
 * arithmetic), the dataset's and the selection's Mongo-style filters, GROUP BY the dimensions,
 * ORDER BY the first, LIMIT. Identifiers are validated and quoted, values are parameters. Every
 * problem is a `dataset_compile_error` on the dataset; pure and total.
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
  return new Planner(dataset, graph).plan(selection, options, selectionFilterLabel);
}

interface Join {
  readonly alias: string;
  readonly table: string;
  readonly object: ObjectNode;
  readonly parentAlias: string;
  readonly column: string;
}

/** How a field path is mentioned: whose it is (for messages), where, and whether a patch may replace the value there. */
interface Mention {
  readonly origin: ProblemOrigin;
  readonly at: readonly Segment[];
  readonly who: string;
  readonly patchable: boolean;
}

class Planner {
  private readonly problems: CompileProblem[] = [];
  private readonly joins = new Map<string, Join>();
  private readonly brokenPaths = new Set<string>();
  private readonly aliases = new Set<string>();
  private readonly base: ObjectNode | undefined;
  private readonly baseAlias: string;
  private readonly measureIndex = new Map<string, number>();
  private readonly dimensionIndex = new Map<string, number>();
  private readonly measureSql = new Map<string, { sql: RawBuilder<unknown>; terms: number } | null>();
  private readonly ds: string;

  constructor(
    private readonly dataset: DatasetNode,
    private readonly graph: Graph,
  ) {
    this.ds = `dataset "${dataset.name}"`;
    dataset.def.measures.forEach((m, i) => !this.measureIndex.has(m.name) && this.measureIndex.set(m.name, i));
    dataset.def.dimensions.forEach((d, i) => !this.dimensionIndex.has(d.name) && this.dimensionIndex.set(d.name, i));
    const objectName = dataset.object;
    this.base = objectName === undefined ? undefined : graph.objects.get(objectName);
    this.baseAlias = objectName ?? 'base';
    if (objectName === undefined) {
      this.problem(
        'dataset',
        ['object'],
        `Dataset "${dataset.name}" names no base object, so it has no table to read.`,
        `Set "object" of ${this.ds} to the object it summarizes.`,
      );
    } else if (!this.base) {
      this.problem(
        'dataset',
        ['object'],
        `Dataset "${dataset.name}" reads object "${objectName}", which does not exist, so it has no table to read.`,
        `Set "object" of ${this.ds} to an existing object, or create object "${objectName}".`,
        {
          suggestions: didYouMean(objectName, graph.objects.keys()),
        },
      );
    } else if (!isSqlIdentifier(objectName)) {
      this.problem(
        'dataset',
        ['object'],
        `Dataset "${dataset.name}" reads object "${objectName}", whose name is not a usable SQL table name.`,
        'Use a snake_case object name of at most 63 characters.',
      );
    }
    this.aliases.add(this.baseAlias);
  }

  plan(selection: DatasetSelection | undefined, options: CompileOptions | undefined, selectionFilterLabel?: string): DatasetPlan {
    const schema = options?.schema;
    if (schema !== undefined && !isSqlIdentifier(schema)) {
      this.problem(
        'selection',
        [],
        `The schema option "${schema}" for ${this.ds} is not a usable SQL schema name.`,
        'Pass a schema name of letters, digits and _ (at most 63 characters).',
      );
    }
    if (this.base) this.planIncludes();

    const dims = this.pick('dimensions', selection?.dimensions, [...this.dataset.dimensions.keys()]);
    const measures = this.pick('measures', selection?.measures, [...this.dataset.measures.keys()]);
    const selects: Array<{ name: string; kind: 'dimension' | 'measure'; sql: RawBuilder<unknown> | undefined }> = [];
    for (const name of dims) selects.push({ name, kind: 'dimension', sql: this.dimension(name) });
    for (const name of measures) selects.push({ name, kind: 'measure', sql: this.measure(name, [])?.sql });
    this.checkAliases(selects, selection);

    const where: RawBuilder<SqlBool>[] = [];
    const own = compileFilter(this.dataset.def.filter, this.filterContext('dataset', ['filter'], `The filter of ${this.ds}`));
    if (own) where.push(own);
    if (selection?.filter !== undefined) {
      const sel = compileFilter(selection.filter, this.filterContext('selection-filter', [], selectionFilterLabel ?? `The selection's filter on ${this.ds}`));
      if (sel) where.push(sel);
    }
    const limit = selection?.limit;
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0 && limit <= 2_147_483_647)) {
      this.problem(
        'selection',
        [],
        `The selection asks ${this.ds} for limit ${String(limit)}, which is not a non-negative integer.`,
        'Pass a whole-number limit, or none.',
      );
    }
    if (selects.length === 0) {
      const what = selection ? 'The selection asks' : `Dataset "${this.dataset.name}" declares`;
      this.problem(
        selection ? 'selection' : 'dataset',
        [],
        `${what} no dimension and no measure, so there is nothing to select.`,
        `Declare (or select) at least one measure of ${this.ds}.`,
      );
    }
    if (this.problems.length > 0) return { problems: this.problems };
    const base = this.base as ObjectNode;
    const joins = [...this.joins.values()];
    return {
      problems: [],
      emit: () =>
        emitSql(
          base.name,
          this.baseAlias,
          joins,
          selects as Array<{ name: string; kind: 'dimension' | 'measure'; sql: RawBuilder<unknown> }>,
          where,
          limit,
          schema,
        ),
    };
  }

  private problem(
    origin: ProblemOrigin,
    at: readonly Segment[],
    message: string,
    fix: string,
    extra: Partial<Pick<CompileProblem, 'suggestions' | 'ref' | 'patch' | 'reportedByL1'>> = {},
  ): void {
    this.problems.push({ origin, at, message, fix, ...extra });
  }

  /** The selected names (deduplicated, selection order), reporting names the dataset does not declare. */
  private pick(kind: 'dimensions' | 'measures', requested: unknown, all: string[]): string[] {
    if (requested === undefined) return all;
    if (!Array.isArray(requested)) {
      this.problem(
        'selection',
        [],
        `The selection's ${kind} for ${this.ds} is ${JSON.stringify(requested) ?? String(requested)}, not a list of names.`,
        `Pass ${kind} as an array of names.`,
      );
      return [];
    }
    const declared = kind === 'dimensions' ? this.dataset.dimensions : this.dataset.measures;
    const out: string[] = [];
    for (const name of requested) {
      if (typeof name !== 'string' || !declared.has(name)) {
        const shown = typeof name === 'string' ? `"${name}"` : String(JSON.stringify(name));
        this.problem(
          'selection',
          [],
          `The selection asks ${this.ds} for ${kind === 'dimensions' ? 'dimension' : 'measure'} ${shown}, which it does not declare (it has: ${list(declared.keys())}).`,
          `Select one of the ${kind} of ${this.ds}, or declare ${shown} there.`,
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

  private planIncludes(): void {
    const include = this.dataset.def.include ?? [];
    include.forEach((raw, i) => {
      const at = ['include', i];
      if (typeof raw !== 'string' || raw === '' || raw.split('.').some((s) => s === '')) {
        this.problem(
          'dataset',
          at,
          `Include entry ${i} of ${this.ds} is ${JSON.stringify(raw)}, not a relationship path like "account" or "account.owner".`,
          `Write include ${i} of ${this.ds} as a dotted path of lookup fields.`,
        );
        return;
      }
      const hops = raw.split('.');
      if (hops.length > MAX_INCLUDE_HOPS) {
        this.brokenPaths.add(raw);
        this.problem(
          'dataset',
          at,
          `Include path "${raw}" of ${this.ds} has ${hops.length} hops; a dataset joins at most ${MAX_INCLUDE_HOPS} (ADR-0071).`,
          `Shorten include "${raw}" of ${this.ds} to at most ${MAX_INCLUDE_HOPS} lookups.`,
        );
        return;
      }
      this.walk(hops, (failure) => {
        this.problem(
          'dataset',
          at,
          `Include path "${raw}" of ${this.ds} cannot be joined: ${failure.message}.`,
          `${failure.fix}, or remove "${raw}" from the include of ${this.ds}.`,
          {
            ref: failure.ref,
            suggestions: failure.suggestions,
          },
        );
      });
    });
  }

  /** Walks (and registers) the joins of a relationship path; reports the first bad hop through `fail`. */
  private walk(
    hops: readonly string[],
    fail: (f: { message: string; fix: string; ref: { type: string; name: string; member: string }; suggestions: string[] }) => void,
  ): Join | undefined {
    let object = this.base as ObjectNode;
    let parentAlias = this.baseAlias;
    let prefix = '';
    let join: Join | undefined;
    for (const hop of hops) {
      prefix = prefix ? `${prefix}.${hop}` : hop;
      const known = this.joins.get(prefix);
      if (known) {
        join = known;
        object = known.object;
        parentAlias = known.alias;
        continue;
      }
      if (this.brokenPaths.has(prefix)) return undefined;
      const ref = { type: 'object', name: object.name, member: hop };
      const field = resolveField(object, hop);
      const relations = () => [...object.fields.values()].filter((f) => RELATION_TYPES.has(f.def.type) && !f.def.multiple).map((f) => f.name);
      const broken = (message: string, fix: string, suggestions: string[] = []) => {
        this.brokenPaths.add(prefix);
        fail({ message, fix, ref, suggestions });
        return undefined;
      };
      if (!field)
        return broken(
          `hop "${hop}" is not a field of object "${object.name}"`,
          `Name a lookup field of "${object.name}" (it has: ${list(relations())})`,
          didYouMean(hop, relations()),
        );
      if (!RELATION_TYPES.has(field.def.type))
        return broken(
          `hop "${hop}" is a ${field.def.type} field of object "${object.name}", not a lookup/master_detail relationship`,
          `Name a lookup field of "${object.name}" (it has: ${list(relations())})`,
        );
      if (field.def.multiple)
        return broken(
          `hop "${hop}" of object "${object.name}" is a multiple lookup (to-many); only to-one relationships can be joined`,
          `Join through a single-value lookup`,
        );
      const target = referenceOf(field.def);
      if (!target)
        return broken(
          `hop "${hop}" of object "${object.name}" has no reference, so it points at no object`,
          `Set "reference" of field "${hop}" of object "${object.name}"`,
        );
      const targetObject = this.graph.objects.get(target);
      if (!targetObject)
        return broken(
          `hop "${hop}" of object "${object.name}" points at object "${target}", which does not exist`,
          `Create object "${target}" or fix the reference of "${object.name}.${hop}"`,
        );
      const from = datasourceOf(object);
      const to = datasourceOf(targetObject);
      if (from !== to)
        return broken(
          `hop "${hop}" joins object "${object.name}" (datasource "${from}") to object "${target}" (datasource "${to}"); a dataset cannot join across datasources (#5115)`,
          `Base a separate dataset on "${target}", or keep both objects in one datasource`,
        );
      if (!isSqlIdentifier(hop) || !isSqlIdentifier(target))
        return broken(`hop "${hop}" (object "${target}") is not a usable SQL name`, 'Use snake_case names of at most 63 characters');
      join = { alias: this.allocateAlias(prefix), table: target, object: targetObject, parentAlias, column: hop };
      this.joins.set(prefix, join);
      object = targetObject;
      parentAlias = join.alias;
    }
    return join;
  }

  /** `account.owner` → `account__owner`; a taken or over-long alias falls back to `j<n>`. */
  private allocateAlias(path: string): string {
    let alias = path.replaceAll('.', '__');
    for (let n = this.aliases.size; !isSqlIdentifier(alias) || this.aliases.has(alias); n++) alias = `j${n}`;
    this.aliases.add(alias);
    return alias;
  }

  /** Resolves a field path on the base object or a declared include; reports and returns undefined when it cannot. */
  private column(path: string, m: Mention): ColumnRef | undefined {
    if (!this.base) return undefined;
    const segments = path.split('.');
    if (segments.some((s) => s === '')) {
      this.problem(m.origin, m.at, `${m.who} reads "${path}", which is not a field path.`, 'Name a field, or relationship.field for an included relationship.');
      return undefined;
    }
    const name = segments[segments.length - 1] as string;
    const relationship = segments.slice(0, -1).join('.');
    let object = this.base;
    let alias = this.baseAlias;
    if (relationship) {
      if (segments.slice(0, -1).some((_, k) => this.brokenPaths.has(segments.slice(0, k + 1).join('.')))) return undefined;
      const join = this.joins.get(relationship);
      if (!join) {
        const hops = segments.length - 1;
        const include = this.dataset.def.include;
        const addable = hops <= MAX_INCLUDE_HOPS && this.resolvableChain(segments.slice(0, -1));
        const patch: JsonPatchOp[] | undefined = addable
          ? [include ? { op: 'add', path: '/include/-', value: relationship } : { op: 'add', path: '/include', value: [relationship] }]
          : undefined;
        this.problem(
          m.origin,
          m.at,
          `${m.who} reads "${path}", but relationship path "${relationship}" is not declared in the include of ${this.ds} (#5367)${hops > MAX_INCLUDE_HOPS ? `, and it has ${hops} hops (at most ${MAX_INCLUDE_HOPS})` : ''}.`,
          hops > MAX_INCLUDE_HOPS ? `Read a field at most ${MAX_INCLUDE_HOPS} lookups away.` : `Add "${relationship}" to the include of ${this.ds}.`,
          patch ? { patch } : {},
        );
        return undefined;
      }
      object = join.object;
      alias = join.alias;
    }
    const field = resolveField(object, name);
    if (!field) {
      const names = allFieldNames(object);
      const winner = m.patchable ? clearWinner(name, names) : undefined;
      this.problem(
        m.origin,
        m.at,
        `${m.who} reads field "${name}"${relationship ? ` (through "${relationship}")` : ''}, which object "${object.name}" does not have.`,
        `Name a field of object "${object.name}" (it has: ${list(names)}).`,
        {
          ref: { type: 'object', name: object.name, member: name },
          suggestions: didYouMean(name, names),
          ...(!relationship && m.origin === 'dataset' && (m.at[0] === 'dimensions' || m.at[0] === 'measures') ? { reportedByL1: true } : {}),
          ...(winner ? { patch: [{ op: 'replace', path: pointer(...m.at), value: relationship ? `${relationship}.${winner}` : winner }] } : {}),
        },
      );
      return undefined;
    }
    if (!isSqlIdentifier(name)) {
      this.problem(
        m.origin,
        m.at,
        `${m.who} reads field "${name}", whose name is not a usable SQL column name.`,
        'Use a snake_case field name of at most 63 characters.',
      );
      return undefined;
    }
    return { sql: sql.ref(`${alias}.${name}`), field };
  }

  /** Whether a relationship path would join if it were declared (so a patch adding it is safe). */
  private resolvableChain(hops: readonly string[]): boolean {
    let object = this.base;
    for (const hop of hops) {
      const f = object ? resolveField(object, hop) : undefined;
      if (!f || !RELATION_TYPES.has(f.def.type) || f.def.multiple) return false;
      const target = referenceOf(f.def);
      object = target ? this.graph.objects.get(target) : undefined;
      if (!object) return false;
    }
    return true;
  }

  private filterContext(origin: ProblemOrigin, prefix: readonly Segment[], who: string): FilterContext {
    return {
      column: (path, at) => this.column(path, { origin, at: [...prefix, ...at], who: `${who}${loc(at)}`, patchable: false }),
      error: (at, message, fix, suggestions) =>
        this.problem(origin, [...prefix, ...at], `${who}${loc(at)} ${message}.`, fix, suggestions?.length ? { suggestions } : {}),
    };
  }

  private dimension(name: string): RawBuilder<unknown> | undefined {
    const i = this.dimensionIndex.get(name) ?? 0;
    const d = this.dataset.dimensions.get(name);
    if (!d) return undefined;
    const who = `Dimension "${name}" of ${this.ds}`;
    if (!isSqlIdentifier(name)) {
      this.problem(
        'dataset',
        ['dimensions', i, 'name'],
        `${who} is not a usable SQL column name, so it cannot name an output column.`,
        'Rename the dimension to letters, digits and _ (at most 63 characters).',
      );
    }
    if (typeof d.field !== 'string') return undefined;
    const col = this.column(d.field, { origin: 'dataset', at: ['dimensions', i, 'field'], who, patchable: true });
    if (!col) return undefined;
    const g = d.dateGranularity;
    if (g === undefined) return col.sql;
    if (!GRANULARITIES.has(g)) {
      this.problem(
        'dataset',
        ['dimensions', i, 'dateGranularity'],
        `${who} has dateGranularity "${String(g)}", which is not day, week, month, quarter or year.`,
        'Use day, week, month, quarter or year.',
      );
      return undefined;
    }
    if (!TEMPORAL.has(col.field.def.type)) {
      this.problem(
        'dataset',
        ['dimensions', i, 'dateGranularity'],
        `${who} buckets field "${col.field.name}" by ${g}, but it is a ${col.field.def.type} field, not a date or datetime.`,
        `Remove dateGranularity from ${who.toLowerCase()}, or point it at a date field.`,
      );
      return undefined;
    }
    // The granularity is one of five fixed words, so it is inlined: GROUP BY must see the same expression as SELECT.
    return sql`date_trunc(${sql.lit(g)}, ${col.sql})`;
  }

  /** A measure's SQL (memoized), or null when it cannot compile; `chain` is the derived path that led here. */
  private measure(name: string, chain: readonly string[]): { sql: RawBuilder<unknown>; terms: number } | null {
    const memo = this.measureSql.get(name);
    if (memo !== undefined) return memo;
    const i = this.measureIndex.get(name) ?? 0;
    const m = this.dataset.measures.get(name);
    if (!m) return null;
    const who = `Measure "${name}" of ${this.ds}`;
    this.measureSql.set(name, null); // until compiled: a failed or in-progress measure yields null
    let result: { sql: RawBuilder<unknown>; terms: number } | null = null;
    if (!isSqlIdentifier(name)) {
      this.problem(
        'dataset',
        ['measures', i, 'name'],
        `${who} is not a usable SQL column name, so it cannot name an output column.`,
        'Rename the measure to letters, digits and _ (at most 63 characters).',
      );
    }
    if (m.derived) result = this.derived(name, i, who, m.derived, chain);
    else result = this.aggregate(i, who, m);
    this.measureSql.set(name, result);
    return result;
  }

  private derived(
    name: string,
    i: number,
    who: string,
    derived: { op: string; of: readonly string[] },
    chain: readonly string[],
  ): { sql: RawBuilder<unknown>; terms: number } | null {
    if (chain.length >= MAX_DERIVED_DEPTH) {
      this.problem(
        'dataset',
        ['measures', i, 'derived'],
        `${who} nests derived measures more than ${MAX_DERIVED_DEPTH} deep (${[...chain, name].join(' → ')}).`,
        'Derive from aggregate measures more directly.',
      );
      return null;
    }
    const { op, of } = derived;
    const operands: RawBuilder<unknown>[] = [];
    let terms = 0;
    let ok = true;
    of.forEach((operand, j) => {
      const at = ['measures', i, 'derived', 'of', j];
      if (typeof operand !== 'string' || !this.dataset.measures.has(operand)) {
        ok = false;
        const names = [...this.dataset.measures.keys()].filter((n) => n !== name);
        this.problem(
          'dataset',
          at,
          `${who} derives from "${String(operand)}", which is not a measure of ${this.ds} (it has: ${list(names)}).`,
          `Name another measure of ${this.ds} in derived.of.`,
          {
            suggestions: typeof operand === 'string' ? didYouMean(operand, names) : [],
          },
        );
        return;
      }
      // The measures being compiled are `chain` plus this one; meeting one of them again is a cycle.
      if (operand === name || chain.includes(operand)) {
        ok = false;
        const cycle = [...chain.slice(Math.max(0, chain.indexOf(operand))), name, operand];
        this.problem(
          'dataset',
          at,
          `${who} derives from "${operand}", which derives back from it: ${cycle.join(' → ')}. A derived measure cannot depend on itself.`,
          `Break the cycle: derive "${name}" from aggregate measures only.`,
        );
        return;
      }
      const sub = this.measure(operand, [...chain, name]);
      if (!sub) {
        ok = false;
        return;
      }
      terms += sub.terms;
      operands.push(sql`(${sub.sql})::float8`);
    });
    if (!ok) return null;
    if (terms > MAX_DERIVED_TERMS) {
      this.problem(
        'dataset',
        ['measures', i, 'derived'],
        `${who} expands to ${terms} aggregate terms; at most ${MAX_DERIVED_TERMS} are compiled.`,
        'Simplify the derived measures.',
      );
      return null;
    }
    const at = ['measures', i, 'derived', 'of'];
    if (op === 'ratio') {
      if (operands.length !== 2) {
        this.problem(
          'dataset',
          at,
          `${who} is a ratio of ${operands.length} measure(s); a ratio divides exactly two.`,
          'List exactly two measures in derived.of: numerator, denominator.',
        );
        return null;
      }
      return { sql: sql`(${operands[0]} / nullif(${operands[1]}, 0))`, terms };
    }
    if (op === 'sum' || op === 'difference' || op === 'product') {
      if (op === 'difference' && operands.length < 2) {
        this.problem(
          'dataset',
          at,
          `${who} is a difference of ${operands.length} measure; a difference needs at least two.`,
          'List at least two measures in derived.of.',
        );
        return null;
      }
      return { sql: sql`(${sql.join(operands, sql.raw(` ${DERIVED_OPERATOR[op]} `))})`, terms };
    }
    this.problem(
      'dataset',
      ['measures', i, 'derived', 'op'],
      `${who} uses derived op "${String(op)}", which is not ratio, sum, difference or product.`,
      'Use ratio, sum, difference or product.',
    );
    return null;
  }

  private aggregate(
    i: number,
    who: string,
    m: { aggregate?: string | undefined; field?: string | undefined; filter?: unknown },
  ): { sql: RawBuilder<unknown>; terms: number } | null {
    const agg = m.aggregate;
    if (agg === undefined) {
      this.problem(
        'dataset',
        ['measures', i],
        `${who} declares neither an aggregate nor a derived formula, so it computes nothing.`,
        'Set "aggregate" (count, count_distinct, sum, avg, min, max) or "derived".',
      );
      return null;
    }
    if (!Object.hasOwn(AGGREGATE_SQL, agg)) {
      this.problem(
        'dataset',
        ['measures', i, 'aggregate'],
        `${who} uses aggregate "${agg}", which is not count, count_distinct, sum, avg, min or max.`,
        'Use count, count_distinct, sum, avg, min or max.',
      );
      return null;
    }
    const fn = agg as keyof typeof AGGREGATE_SQL;
    let col: ColumnRef | undefined;
    if (m.field !== undefined) {
      col = this.column(m.field, { origin: 'dataset', at: ['measures', i, 'field'], who, patchable: true });
      if (!col) return null;
    } else if (fn !== 'count') {
      this.problem('dataset', ['measures', i], `${who} aggregates ${fn} but names no field to aggregate.`, `Set "field" of the measure, or make it a count.`);
      return null;
    }
    if ((fn === 'sum' || fn === 'avg') && col && !NUMERIC.has(col.field.def.type)) {
      this.problem(
        'dataset',
        ['measures', i, 'field'],
        `${who} takes the ${fn} of field "${col.field.name}", a ${col.field.def.type} field; ${fn} needs a number.`,
        `Aggregate a number/currency/percent field, or use count/count_distinct/min/max.`,
        {
          ref: { type: 'object', name: this.base?.name ?? '', member: col.field.name },
        },
      );
      return null;
    }
    const filter =
      m.filter !== undefined
        ? compileFilter(
            m.filter,
            this.filterContext('dataset', ['measures', i, 'filter'], `The filter of measure "${this.dataset.def.measures[i]?.name}" of ${this.ds}`),
          )
        : undefined;
    // count(field) counts non-null values (defect class #29: it once compiled to count(*)).
    const inner = fn === 'count_distinct' ? sql`count(distinct ${col?.sql})` : col ? sql`${sql.raw(AGGREGATE_SQL[fn])}(${col.sql})` : sql`count(*)`;
    const filtered = filter ? sql`${inner} filter (where ${filter})` : inner;
    // Casts make pg and PGlite agree: count is bigint (a string on pg), sum/avg of numeric is numeric (a string).
    const cast =
      fn === 'count' || fn === 'count_distinct' ? 'int' : fn === 'sum' || fn === 'avg' || (col && NUMERIC.has(col.field.def.type)) ? 'float8' : undefined;
    return { sql: cast ? sql`(${filtered})::${sql.raw(cast)}` : filtered, terms: 1 };
  }

  /** Output column names must be unique: a dimension and a measure sharing a name would collide. */
  private checkAliases(selects: ReadonlyArray<{ name: string; kind: 'dimension' | 'measure' }>, selection: DatasetSelection | undefined): void {
    const seen = new Set<string>();
    for (const s of selects) {
      if (seen.has(s.name)) {
        const i = this.measureIndex.get(s.name) ?? 0;
        this.problem(
          selection ? 'selection' : 'dataset',
          selection ? [] : ['measures', i, 'name'],
          `${this.ds} has a dimension and a measure both named "${s.name}", so the query would return two columns of that name.`,
          `Rename the measure or the dimension "${s.name}" of ${this.ds}.`,
        );
      }
      seen.add(s.name);
    }
  }
}

function emitSql(
  table: string,
  alias: string,
  joins: readonly Join[],
  selects: ReadonlyArray<{ name: string; kind: 'dimension' | 'measure'; sql: RawBuilder<unknown> }>,
  where: readonly RawBuilder<SqlBool>[],
  limit: number | undefined,
  schema: string | undefined,
): CompiledDataset {
  // Tables are qualified by hand rather than with withSchema(), which would also rewrite column
  // references whose alias happens to equal a table name; every table is aliased, so refs never need the schema.
  const qualify = (t: string) => (schema ? `${schema}.${t}` : t);
  let q = PG_COMPILER.selectFrom(`${qualify(table)} as ${alias}`) as SelectQueryBuilder<AnyDatabase, string, Record<string, unknown>>;
  for (const j of joins) {
    q = q.leftJoin(`${qualify(j.table)} as ${j.alias}`, (on) =>
      on.on(sql<SqlBool>`${sql.ref(`${j.alias}.id`)} = ${sql.ref(`${j.parentAlias}.${j.column}`)}`),
    ) as typeof q;
  }
  q = q.select(selects.map((s) => s.sql.as(s.name))) as typeof q;
  if (where.length === 1) q = q.where(where[0]!);
  else if (where.length > 1) q = q.where(sql<SqlBool>`${sql.join(where, sql` and `)}`);
  const dims = selects.filter((s) => s.kind === 'dimension');
  if (dims.length > 0) q = q.groupBy(dims.map((d) => d.sql));
  if (dims[0]) q = q.orderBy(sql.ref(dims[0].name));
  if (limit !== undefined) q = q.limit(limit);
  const compiled = q.compile();
  return { sql: compiled.sql, params: [...compiled.parameters], columns: selects.map((s) => ({ name: s.name, kind: s.kind })) };
}

/** An object's datasource (ObjectStack default: `default`); platform objects live in the default one. */
function datasourceOf(object: ObjectNode): string {
  const ds = (object.def as { datasource?: unknown }).datasource;
  return typeof ds === 'string' && ds !== '' ? ds : 'default';
}
