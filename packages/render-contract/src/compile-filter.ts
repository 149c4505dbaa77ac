import type { FieldNode } from '@bvl/metadata';
import { didYouMean } from '@bvl/metadata';
import { type SqlBool, sql } from 'kysely';
import { CONTEXT_TOKENS, DATE_MACRO_NAMES, dateMacroSql, type MacroKind, placeholderName } from './date-macro-sql.ts';
import type { DeferredSql } from './deferred-sql.ts';

/** A segment of a JSON pointer, relative to the filter's root. */
export type Segment = string | number;

/** A resolved column: its SQL reference (built when emitted) and the field behind it. */
export interface ColumnRef {
  readonly sql: DeferredSql;
  readonly field: FieldNode;
}

/** What the filter compiler needs from its caller: field resolution and error reporting. */
export interface FilterContext {
  /** Resolves a (possibly dotted) field path; reports its own error and returns undefined when it cannot. */
  column(path: string, at: readonly Segment[]): ColumnRef | undefined;
  error(at: readonly Segment[], message: string, fix: string, suggestions?: string[]): void;
}

/** Deepest `$and`/`$or`/`$not` nesting compiled. */
export const MAX_FILTER_DEPTH = 32;
/** Largest `$in`/`$nin` list (Postgres caps a statement at 65535 parameters). */
export const MAX_IN_LIST = 1000;

const COMPARISONS = { $eq: '=', $ne: '<>', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;
type Comparison = keyof typeof COMPARISONS;
/** Substring operators: LIKE wrappers around the (escaped) comparand. Case-exact, except `$icontains` (ASCII case only). */
const PATTERNS = { $contains: ['%', '%'], $notContains: ['%', '%'], $startsWith: ['', '%'], $endsWith: ['%', ''], $icontains: ['%', '%'] } as const;
/**
 * The field operators ObjectStack's analytics accepts: exactly its FILTER_OPERATORS
 * (packages/spec/src/data/filter.zod.ts). `$like`/`$ilike` are staged out of that list and refused
 * by service-analytics, and there is no field-level `$not`.
 */
const FIELD_OPERATORS = [
  ...Object.keys(COMPARISONS),
  '$in',
  '$nin',
  '$between',
  '$contains',
  '$notContains',
  '$startsWith',
  '$endsWith',
  '$icontains',
  '$null',
  '$exists',
];
/** Its LOGICAL_OPERATORS: there is no `$nor`. */
const LOGICAL = ['$and', '$or', '$not'];
const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ASCII_LOWER = 'abcdefghijklmnopqrstuvwxyz';
/** Folds ASCII letters only (the `$icontains` domain: "café" does not match "CAFÉ"). */
const foldAscii = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const TEMPORAL = new Set(['date', 'datetime']);
/** Types whose column type is not known here; comparisons are left to the database. */
const OPAQUE = new Set(['formula', 'summary']);

type Condition = DeferredSql<SqlBool>;
const TRUE_SQL = sql<SqlBool>`true`;
const FALSE_SQL = sql<SqlBool>`false`;
const TRUE: Condition = () => TRUE_SQL;
const FALSE: Condition = () => FALSE_SQL;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const and = (parts: Condition[]): Condition =>
  parts.length === 0
    ? TRUE
    : parts.length === 1
      ? parts[0]!
      : () =>
          sql<SqlBool>`(${sql.join(
            parts.map((p) => p()),
            sql` and `,
          )})`;
const or = (parts: Condition[]): Condition =>
  parts.length === 0
    ? FALSE
    : parts.length === 1
      ? parts[0]!
      : () =>
          sql<SqlBool>`(${sql.join(
            parts.map((p) => p()),
            sql` or `,
          )})`;
/** Negation that is total over NULL: `not coalesce(p, false)`, so a NULL row is in the complement (Mongo semantics). */
const not =
  (p: Condition): Condition =>
  () =>
    sql<SqlBool>`not coalesce(${p()}, false)`;
const isNull =
  (col: ColumnRef): Condition =>
  () =>
    sql<SqlBool>`${col.sql()} is null`;
const isNotNull =
  (col: ColumnRef): Condition =>
  () =>
    sql<SqlBool>`${col.sql()} is not null`;
const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
};

/** An operand: its SQL or parameter value (built when emitted) and whether it is a calendar day (an upper bound on a day then covers the whole day). */
interface Operand {
  readonly sql: () => unknown;
  readonly kind: MacroKind | 'value';
}

/**
 * Compiles a Mongo-style FilterCondition (`{status: {$ne: 'done'}, due: {$lt: '{today}'}}`,
 * `$and/$or/$not`, a bare value meaning equals) to a SQL condition, with ObjectStack's operator
 * vocabulary and semantics (case-exact substring operators, `$icontains` folding ASCII case,
 * null-safe negation). Values become parameters;
 * date placeholders become expressions on the database's clock. Every problem is reported to
 * `ctx` with its pointer; the result (SQL built when called) is undefined when the filter is empty.
 */
export function compileFilter(filter: unknown, ctx: FilterContext, at: readonly Segment[] = []): Condition | undefined {
  if (filter === undefined || filter === null) return undefined;
  if (isRecord(filter) && Object.keys(filter).length === 0) return undefined;
  return condition(filter, ctx, at, 0);
}

function condition(node: unknown, ctx: FilterContext, at: readonly Segment[], depth: number): Condition {
  if (depth > MAX_FILTER_DEPTH) {
    ctx.error(at, `nests $and/$or/$not more than ${MAX_FILTER_DEPTH} levels deep`, 'Flatten the filter.');
    return TRUE;
  }
  if (!isRecord(node)) {
    ctx.error(
      at,
      `is ${show(node)}, not a condition object like {"field": value}`,
      'Write the condition as an object of field names to values or operator objects ({"$ne": …}).',
    );
    return TRUE;
  }
  const parts: Condition[] = [];
  for (const [key, value] of Object.entries(node)) {
    // Only a JS caller can pass undefined; JSON has no such value, so the key is treated as absent.
    if (value === undefined) continue;
    const here = [...at, key];
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value)) {
        ctx.error(here, `${key} takes an array of conditions, not ${show(value)}`, `Write ${key} as [{…}, {…}].`);
        continue;
      }
      const subs = value.map((v, i) => condition(v, ctx, [...here, i], depth + 1));
      parts.push(key === '$and' ? and(subs) : or(subs));
    } else if (key === '$nor') {
      ctx.error(
        here,
        'uses "$nor", which ObjectStack\'s filter language does not have (logical operators: $and, $or, $not)',
        'Write {"$not": {"$or": [{…}, {…}]}}.',
        ['$not', '$or'],
      );
    } else if (key === '$not') {
      parts.push(not(condition(value, ctx, here, depth + 1)));
    } else if (key.startsWith('$')) {
      ctx.error(
        here,
        `uses "${key}", which is not a logical operator (${LOGICAL.join(', ')}) nor a field name`,
        `Use one of ${LOGICAL.join(', ')}, or put field operators under a field: {"field": {"${key}": …}}.`,
        didYouMean(key, LOGICAL),
      );
    } else {
      const col = ctx.column(key, here);
      if (col) parts.push(fieldCondition(col, value, ctx, here, depth));
    }
  }
  return and(parts);
}

function fieldCondition(col: ColumnRef, value: unknown, ctx: FilterContext, at: readonly Segment[], depth: number): Condition {
  if (depth > MAX_FILTER_DEPTH) {
    ctx.error(at, `nests operators more than ${MAX_FILTER_DEPTH} levels deep`, 'Flatten the filter.');
    return TRUE;
  }
  if (value === null) return isNull(col);
  if (Array.isArray(value)) return inList(col, value, false, ctx, at);
  if (!isRecord(value) || '$field' in value) return compare(col, '$eq', value, ctx, at);
  const parts: Condition[] = [];
  for (const [op, arg] of Object.entries(value)) {
    if (arg === undefined) continue;
    const here = [...at, op];
    if (Object.hasOwn(COMPARISONS, op)) parts.push(compare(col, op as Comparison, arg, ctx, here));
    else if (op === '$in' || op === '$nin') {
      if (!Array.isArray(arg)) ctx.error(here, `${op} takes an array of values, not ${show(arg)}`, `Write ${op} as ["a", "b"].`);
      else parts.push(inList(col, arg, op === '$nin', ctx, here));
    } else if (op === '$between') {
      if (!Array.isArray(arg) || arg.length !== 2) ctx.error(here, `$between takes [min, max], not ${show(arg)}`, 'Write $between as [min, max].');
      else parts.push(and([compare(col, '$gte', arg[0], ctx, [...here, 0]), compare(col, '$lte', arg[1], ctx, [...here, 1])]));
    } else if (Object.hasOwn(PATTERNS, op)) parts.push(pattern(col, op as keyof typeof PATTERNS, arg, ctx, here));
    else if (op === '$null' || op === '$exists') {
      if (typeof arg !== 'boolean') ctx.error(here, `${op} takes true or false, not ${show(arg)}`, `Write {"${op}": true} or {"${op}": false}.`);
      // $exists asks whether the field holds a value (ObjectStack: the same question as {$ne: null}).
      else parts.push((op === '$null') === arg ? isNull(col) : isNotNull(col));
    } else if (op === '$not')
      ctx.error(
        here,
        "negates a field operator, which ObjectStack's filter language cannot: $not is a logical operator over whole conditions",
        `Write {"$not": {"${String(at[at.length - 1])}": …}} at the condition level.`,
      );
    else if (op === '$like' || op === '$ilike')
      ctx.error(
        here,
        `uses "${op}", which ObjectStack's analytics refuses (it is staged out of FILTER_OPERATORS; only some drivers answer it)`,
        op === '$like' ? 'Use $contains, $startsWith or $endsWith.' : 'Use $icontains.',
        op === '$like' ? ['$contains', '$startsWith', '$endsWith'] : ['$icontains'],
      );
    else if (op.startsWith('$'))
      ctx.error(
        here,
        `uses operator "${op}", which ObjectStack's filter language does not have`,
        `Use one of ${FIELD_OPERATORS.join(', ')}.`,
        didYouMean(op, FIELD_OPERATORS),
      );
    else
      ctx.error(
        here,
        `mixes the key "${op}" into an operator object`,
        `Write the condition on "${at[at.length - 1]}" either as a value or as an object of operators (${FIELD_OPERATORS.slice(0, 6).join(', ')}, …).`,
      );
  }
  return and(parts);
}

function compare(col: ColumnRef, op: Comparison, value: unknown, ctx: FilterContext, at: readonly Segment[]): Condition {
  const sqlOp = COMPARISONS[op];
  if (value === null) {
    if (op === '$eq') return isNull(col);
    if (op === '$ne') return isNotNull(col);
    ctx.error(at, `compares with null using ${op}, but null is not ordered`, 'State absence with {"$null": true} or {"$eq": null}.');
    return TRUE;
  }
  if (isRecord(value) && '$field' in value) {
    const other = typeof value.$field === 'string' ? ctx.column(value.$field, [...at, '$field']) : undefined;
    if (typeof value.$field !== 'string')
      ctx.error([...at, '$field'], `$field must name a field, not ${show(value.$field)}`, 'Write {"$field": "other_field"}.');
    if (value.addDays !== undefined)
      ctx.error(
        [...at, 'addDays'],
        'uses addDays, which the dataset compiler does not support',
        'Compare with the field directly, or use a date placeholder such as {7_days_ago}.',
      );
    if (!other) return TRUE;
    if (col.field.def.multiple || other.field.def.multiple) ctx.error(at, 'compares a multiple-value field with {$field}', 'Compare single-value fields only.');
    if (op === '$ne') return () => sql<SqlBool>`${col.sql()} is distinct from ${other.sql()}`;
    return () => sql<SqlBool>`${col.sql()} ${sql.raw(sqlOp)} ${other.sql()}`;
  }
  const operand = scalarOperand(col, value, ctx, at);
  if (!operand) return TRUE;
  if (col.field.def.multiple) {
    if (op === '$eq') return () => sql<SqlBool>`${operand.sql()} = any(${col.sql()})`;
    if (op === '$ne') return not(() => sql<SqlBool>`${operand.sql()} = any(${col.sql()})`);
    ctx.error(at, `orders a multiple-value field with ${op}`, 'Use $eq, $ne, $in, $nin or $contains on a multiple-value field.');
    return TRUE;
  }
  if (op === '$ne') return () => sql<SqlBool>`${col.sql()} is distinct from ${operand.sql()}`;
  // A bare calendar day as an upper bound means the whole day (ObjectStack ADR-0053 D-D): half-open to the next day.
  if (op === '$lte' && operand.kind === 'day' && col.field.def.type === 'datetime') return () => sql<SqlBool>`${col.sql()} < (${operand.sql()})::date + 1`;
  return () => sql<SqlBool>`${col.sql()} ${sql.raw(sqlOp)} ${operand.sql()}`;
}

/** A comparand: a parameter, or a placeholder resolved to SQL. Reports and returns undefined when it is neither. */
function scalarOperand(col: ColumnRef, value: unknown, ctx: FilterContext, at: readonly Segment[]): Operand | undefined {
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return { sql: () => value, kind: 'value' };
    ctx.error(at, `compares with ${value}, which is not a finite number`, 'Use a finite number.');
    return undefined;
  }
  if (typeof value === 'boolean') return { sql: () => value, kind: 'value' };
  if (typeof value !== 'string') {
    ctx.error(
      at,
      `compares with ${show(value)}, but a comparand must be a string, number, boolean or null`,
      'Use a scalar value, a {placeholder} or {"$field": "other_field"}.',
    );
    return undefined;
  }
  const name = placeholderName(value);
  if (name === undefined) return { sql: () => value, kind: /^\d{4}-\d{2}-\d{2}$/.test(value) ? 'day' : 'value' };
  const token = Object.hasOwn(CONTEXT_TOKENS, name) ? CONTEXT_TOKENS[name] : undefined;
  if (token !== undefined) return { sql: () => sql`current_setting(${sql.lit(token)}, true)`, kind: 'value' };
  const macro = dateMacroSql(name);
  if (macro === 'too_large') {
    ctx.error(at, `uses placeholder "${value}", whose count is too large`, 'Use a count of at most 100000.');
    return undefined;
  }
  if (!macro) {
    const known = [...DATE_MACRO_NAMES, ...Object.keys(CONTEXT_TOKENS)];
    ctx.error(
      at,
      `uses placeholder "${value}", which is neither a date macro nor a context token: it would be compared as a literal string and match nothing`,
      'Use a date macro such as {today}, {current_month_start} or {30_days_ago}, or a context token such as {current_user_id}.',
      didYouMean(name, known).map((s) => `{${s}}`),
    );
    return undefined;
  }
  const type = col.field.def.type;
  if (type === 'time') {
    ctx.error(at, `compares time field "${col.field.name}" with the date placeholder "${value}"`, 'Compare a time field with a time of day ("HH:MM").');
    return undefined;
  }
  // On a non-temporal column the placeholder compares as its ISO text, as ObjectStack's resolver substitutes it.
  const built = macro.sql;
  if (!TEMPORAL.has(type) && !OPAQUE.has(type)) return { sql: () => sql`(${built})::text`, kind: 'value' };
  return { sql: () => built, kind: macro.kind };
}

function inList(col: ColumnRef, values: readonly unknown[], negate: boolean, ctx: FilterContext, at: readonly Segment[]): Condition {
  if (values.length > MAX_IN_LIST) {
    ctx.error(at, `lists ${values.length} values; at most ${MAX_IN_LIST} are compiled`, 'Filter on a dimension or a shorter list.');
    return TRUE;
  }
  const hasNull = values.includes(null);
  const operands = values.flatMap((v, i) => (v === null ? [] : [scalarOperand(col, v, ctx, [...at, i])?.sql]));
  if (operands.some((o) => o === undefined)) return TRUE;
  const list = () => sql.join((operands as Array<() => unknown>).map((o) => o()));
  if (col.field.def.multiple) {
    const overlap: Condition = operands.length ? () => sql<SqlBool>`${col.sql()} && array[${list()}]::text[]` : FALSE;
    return negate ? not(overlap) : overlap;
  }
  const member: Condition = operands.length ? () => sql<SqlBool>`${col.sql()} in (${list()})` : FALSE;
  if (!negate) return hasNull ? or([member, isNull(col)]) : member;
  const outside = not(member);
  return hasNull ? and([outside, isNotNull(col)]) : outside;
}

function pattern(col: ColumnRef, op: keyof typeof PATTERNS, arg: unknown, ctx: FilterContext, at: readonly Segment[]): Condition {
  if (typeof arg !== 'string') {
    ctx.error(at, `${op} takes a string, not ${show(arg)}`, `Write {"${op}": "text"}.`);
    return TRUE;
  }
  if (col.field.def.multiple) {
    if (op === '$contains') return () => sql<SqlBool>`${arg} = any(${col.sql()})`;
    if (op === '$notContains') return not(() => sql<SqlBool>`${arg} = any(${col.sql()})`);
    ctx.error(at, `uses ${op} on a multiple-value field`, 'Use $contains, $in or $nin on a multiple-value field.');
    return TRUE;
  }
  const [pre, post] = PATTERNS[op];
  // The comparand is literal: only LIKE's own metacharacters need escaping (backslash is Postgres' default escape).
  const literal = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
  // ObjectStack (#5701): the substring operators compare case-exactly; $icontains folds ASCII case only, on both sides.
  if (op === '$icontains') {
    const folded = `${pre}${literal(foldAscii(arg))}${post}`;
    return () => sql<SqlBool>`translate(${col.sql()}::text, ${sql.lit(ASCII_UPPER)}, ${sql.lit(ASCII_LOWER)}) like ${folded}`;
  }
  const like = `${pre}${literal(arg)}${post}`;
  const match: Condition = () => sql<SqlBool>`${col.sql()}::text like ${like}`;
  return op === '$notContains' ? not(match) : match;
}
