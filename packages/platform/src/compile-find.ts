import { type FieldNode, normalizeSort, type ObjectNode, resolveField, type ViewFilterOperator } from '@bvl/metadata';
import { type ColumnRef, compileFilter, type FilterContext } from '@bvl/render-contract';
import { PG_COMPILER } from '@bvl/render-contract/pg-compiler';
import { type CompiledQuery, type RawBuilder, type SqlBool, sql } from 'kysely';
import { columnTypeOf } from './column-type.ts';
import { identifierProblem, showName } from './identifier.ts';

/** One row of a view's `filter` array (ListView `filter: [{field, operator, value}]`). */
export interface ViewFilterRow {
  readonly field: string;
  readonly operator?: string | undefined;
  readonly value?: unknown;
}

/** A list read, as a view's renderer does it: columns, filter (view rows or a Mongo-style object), sort, limit. */
export interface FindQuery {
  /** Columns to read (`id` is always read too); all columns when absent. */
  readonly columns?: readonly string[];
  readonly filter?: readonly ViewFilterRow[] | Readonly<Record<string, unknown>>;
  /** `[{field, order}]`, or the legacy `"field desc"` string. */
  readonly sort?: string | ReadonlyArray<string | { field: string; order?: string | undefined; direction?: string | undefined }>;
  readonly limit?: number;
}

/** The compiled read, or why it cannot run (checked before any SQL). */
export type CompiledFind = { readonly ok: true; readonly query: CompiledQuery } | { readonly ok: false; readonly error: string };

/** Row count of a read that names no limit. */
export const DEFAULT_FIND_LIMIT = 100;
/** Largest row count of one read. */
export const MAX_FIND_LIMIT = 10_000;
/** Filter rows compiled per read. */
export const MAX_FILTER_ROWS = 200;

type Op = (value: unknown) => unknown;
const list = (v: unknown): unknown => (Array.isArray(v) ? v : typeof v === 'string' ? v.split(',').map((s) => s.trim()) : [v]);

/**
 * View filter operators (ObjectStack VIEW_FILTER_OPERATORS, aliases included) as Mongo-style
 * conditions, so a view filter compiles through the same `compileFilter` as dataset filters (one
 * meaning for `{today}`, `contains`, null handling). `is_empty`/`is_not_empty` depend on the column
 * type and are compiled here.
 */
const OPERATORS = {
  equals: (v) => ({ $eq: v }),
  eq: (v) => ({ $eq: v }),
  not_equals: (v) => ({ $ne: v }),
  ne: (v) => ({ $ne: v }),
  neq: (v) => ({ $ne: v }),
  contains: (v) => ({ $contains: v }),
  // ObjectStack (#5701): contains is case-exact; icontains is its ASCII-case-insensitive twin.
  icontains: (v) => ({ $icontains: v }),
  not_contains: (v) => ({ $notContains: v }),
  starts_with: (v) => ({ $startsWith: v }),
  ends_with: (v) => ({ $endsWith: v }),
  greater_than: (v) => ({ $gt: v }),
  gt: (v) => ({ $gt: v }),
  less_than: (v) => ({ $lt: v }),
  lt: (v) => ({ $lt: v }),
  greater_than_or_equal: (v) => ({ $gte: v }),
  gte: (v) => ({ $gte: v }),
  less_than_or_equal: (v) => ({ $lte: v }),
  lte: (v) => ({ $lte: v }),
  in: (v) => ({ $in: list(v) }),
  not_in: (v) => ({ $nin: list(v) }),
  nin: (v) => ({ $nin: list(v) }),
  is_null: () => ({ $null: true }),
  is_not_null: () => ({ $null: false }),
  before: (v) => ({ $lt: v }),
  after: (v) => ({ $gt: v }),
  between: (v) => ({ $between: v }),
} satisfies Record<Exclude<ViewFilterOperator, 'is_empty' | 'is_not_empty'>, Op>;
// The table is typed by metadata's operator list: an operator L1 accepts and this engine cannot
// compile (or the reverse) is a compile error. is_empty/is_not_empty depend on the column and are below.
export const VIEW_FILTER_OPERATORS: Readonly<Record<string, Op>> = OPERATORS;

const unknownField = (name: string): FieldNode => ({ name, def: { type: 'text' }, system: false, invalid: false });

/**
 * Compiles a list read of `object` in `schema` to one parameterized SELECT. Pure: every table,
 * column and sort name is checked as an identifier first (a hostile name is refused with its
 * reason), values are parameters, and a field the metadata does not know is still read by name, so
 * the database decides whether the column exists (that is what a runtime probe must find out).
 */
export function compileFind(schema: string, objectName: string, object: ObjectNode | undefined, query: FindQuery): CompiledFind {
  const bad = (what: string, name: unknown): CompiledFind | undefined => {
    const problem = identifierProblem(name);
    return problem ? { ok: false, error: `${what} ${showName(name)} ${problem}; the read was refused before running SQL` } : undefined;
  };
  const refused = bad('schema', schema) ?? bad('object', objectName);
  if (refused) return refused;
  const columns = ['id', ...(query.columns ?? [])].filter((c, i, all) => all.indexOf(c) === i);
  for (const c of columns) {
    const r = bad(`column of "${objectName}"`, c);
    if (r) return r;
  }
  const limit = query.limit ?? DEFAULT_FIND_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_FIND_LIMIT)
    return { ok: false, error: `limit ${String(limit)} is not a whole number from 0 to ${MAX_FIND_LIMIT}` };

  const errors: string[] = [];
  const fieldOf = (name: string): FieldNode => {
    const field = (object ? resolveField(object, name) : undefined) ?? unknownField(name);
    // multiselect/checkboxes/tags are arrays without `multiple: true`; compileFilter keys array semantics on it.
    return columnTypeOf(field.def).array && !field.def.multiple ? { ...field, def: { ...field.def, multiple: true } } : field;
  };
  const ctx: FilterContext = {
    column: (path, at): ColumnRef | undefined => {
      const problem = identifierProblem(path);
      if (problem) {
        errors.push(`filter field ${showName(path)}${at.length ? ` (at ${at.join('.')})` : ''} ${problem}`);
        return undefined;
      }
      return { sql: () => sql.ref(path), field: fieldOf(path) };
    },
    error: (at, message) => errors.push(`filter${at.length ? ` at ${at.join('.')}` : ''} ${message}`),
  };
  const where: RawBuilder<SqlBool>[] = [];
  const filter = query.filter;
  if (Array.isArray(filter)) {
    if (filter.length > MAX_FILTER_ROWS) return { ok: false, error: `the filter has ${filter.length} rows; at most ${MAX_FILTER_ROWS} are compiled` };
    filter.forEach((row: ViewFilterRow, i: number) => {
      const op = (row.operator ?? 'equals').toLowerCase();
      if (op === 'is_empty' || op === 'is_not_empty') {
        const col = ctx.column(row.field, [i, 'field']);
        if (col) where.push(emptiness(col, op === 'is_empty'));
        return;
      }
      const toCondition = Object.hasOwn(VIEW_FILTER_OPERATORS, op) ? VIEW_FILTER_OPERATORS[op] : undefined;
      if (!toCondition) {
        errors.push(
          `filter row ${i} uses operator "${row.operator}", which is not a view filter operator (${Object.keys(VIEW_FILTER_OPERATORS).join(', ')}, is_empty, is_not_empty)`,
        );
        return;
      }
      const c = compileFilter({ [row.field]: toCondition(row.value) }, ctx, [i]);
      if (c) where.push(c());
    });
  } else if (filter !== undefined) {
    const c = compileFilter(filter, ctx);
    if (c) where.push(c());
  }
  const sort = normalizeSort(query.sort as Parameters<typeof normalizeSort>[0]);
  for (const s of sort) {
    const r = bad(`sort field of "${objectName}"`, s.field);
    if (r) return r;
  }
  if (errors.length > 0) return { ok: false, error: `${errors.join('; ')}; the read was refused before running SQL` };

  let q = PG_COMPILER.selectFrom(`${schema}.${objectName}`).select(columns.map((c) => sql.ref(c).as(c)));
  if (where.length > 0) q = q.where(sql<SqlBool>`${sql.join(where, sql` and `)}`);
  for (const s of sort) q = q.orderBy(sql`${sql.ref(s.field)} ${sql.raw(s.order === 'desc' ? 'desc' : 'asc')}`);
  return { ok: true, query: q.limit(limit).compile() };
}

/** `is_empty`: null, or the type's empty value ('' for text, no elements for arrays). */
function emptiness(col: ColumnRef, empty: boolean): RawBuilder<SqlBool> {
  const type = columnTypeOf(col.field.def);
  const ref = col.sql();
  const blank = type.array
    ? sql<SqlBool>`(${ref} is null or cardinality(${ref}) = 0)`
    : type.base === 'text'
      ? sql<SqlBool>`(${ref} is null or ${ref} = '')`
      : type.base === 'jsonb'
        ? sql<SqlBool>`(${ref} is null or ${ref} in ('null'::jsonb, '""'::jsonb, '[]'::jsonb, '{}'::jsonb))`
        : sql<SqlBool>`${ref} is null`;
  return empty ? blank : sql<SqlBool>`not ${blank}`;
}
