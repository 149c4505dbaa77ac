import { didYouMean } from '@bvl/metadata';
import { sql } from 'kysely';
import { type ColumnRef, compileFilter } from './compile-filter.ts';
import { MAX_DERIVED_DEPTH, MAX_DERIVED_TERMS } from './dataset-plan.ts';
import { type DeferredSql, once } from './deferred-sql.ts';
import { isSqlIdentifier } from './pg-sql.ts';
import type { PlanContext, PlannedMeasure } from './plan-context.ts';

/** Field types an average or a sum can take (a summary is a stored roll-up; a formula is computed per record, never stored). */
const NUMERIC = new Set(['number', 'currency', 'percent', 'rating', 'slider', 'progress', 'summary']);
const AGGREGATE_SQL = { count: 'count', count_distinct: 'count', sum: 'sum', avg: 'avg', min: 'min', max: 'max' } as const;
const DERIVED_OPERATOR = { sum: '+', difference: '-', product: '*' } as const;
const list = (xs: Iterable<string>): string => [...xs].join(', ') || 'none';

/**
 * A measure's SQL (memoized on the context), or null when it cannot compile; `chain` is the derived
 * path that led here. Aggregates follow ObjectStack's analytics semantics: `count(field)` counts
 * non-null values, a `sum` over no rows is 0 (its identity: the executor fills it, `fillEmptyGroups`)
 * while `avg`/`min`/`max` stay null, and derived measures compute over the filled values — a ratio
 * by zero, or over a null operand, is null.
 */
export function planMeasure(ctx: PlanContext, name: string, chain: readonly string[]): PlannedMeasure | null {
  const memo = ctx.measureSql.get(name);
  if (memo !== undefined) return memo;
  const i = ctx.indexOf('measures', name);
  const m = ctx.dataset.measures.get(name);
  if (!m) return null;
  const who = `Measure "${name}" of ${ctx.label}`;
  ctx.measureSql.set(name, null); // until compiled: a failed or in-progress measure yields null
  if (!isSqlIdentifier(name)) {
    ctx.problem(
      'dataset',
      ['measures', i, 'name'],
      `${who} is not a usable SQL column name, so it cannot name an output column.`,
      'Rename the measure to letters, digits and _ (at most 63 characters).',
    );
  }
  const planned = m.derived ? derived(ctx, name, i, who, m.derived, chain) : aggregate(ctx, i, who, m);
  // Built once: derived measures that share an operand reuse its SQL.
  const result = planned && { sql: once(planned.sql), terms: planned.terms };
  ctx.measureSql.set(name, result);
  return result;
}

function derived(
  ctx: PlanContext,
  name: string,
  i: number,
  who: string,
  spec: { op: string; of: readonly string[] },
  chain: readonly string[],
): PlannedMeasure | null {
  if (chain.length >= MAX_DERIVED_DEPTH) {
    ctx.problem(
      'dataset',
      ['measures', i, 'derived'],
      `${who} nests derived measures more than ${MAX_DERIVED_DEPTH} deep (${[...chain, name].join(' → ')}).`,
      'Derive from aggregate measures more directly.',
    );
    return null;
  }
  const { op, of } = spec;
  const operands: DeferredSql[] = [];
  let terms = 0;
  let ok = true;
  of.forEach((operand, j) => {
    const at = ['measures', i, 'derived', 'of', j];
    if (typeof operand !== 'string' || !ctx.dataset.measures.has(operand)) {
      ok = false;
      const names = [...ctx.dataset.measures.keys()].filter((n) => n !== name);
      ctx.problem(
        'dataset',
        at,
        `${who} derives from "${String(operand)}", which is not a measure of ${ctx.label} (it has: ${list(names)}).`,
        `Name another measure of ${ctx.label} in derived.of.`,
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
      ctx.problem(
        'dataset',
        at,
        `${who} derives from "${operand}", which derives back from it: ${cycle.join(' → ')}. A derived measure cannot depend on itself.`,
        `Break the cycle: derive "${name}" from aggregate measures only.`,
      );
      return;
    }
    const sub = planMeasure(ctx, operand, [...chain, name]);
    if (!sub) {
      ok = false;
      return;
    }
    terms += sub.terms;
    operands.push(() => sql`(${sub.sql()})::float8`);
  });
  if (!ok) return null;
  if (terms > MAX_DERIVED_TERMS) {
    ctx.problem(
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
      ctx.problem(
        'dataset',
        at,
        `${who} is a ratio of ${operands.length} measure(s); a ratio divides exactly two.`,
        'List exactly two measures in derived.of: numerator, denominator.',
      );
      return null;
    }
    const [numerator, denominator] = operands as [DeferredSql, DeferredSql];
    return { sql: () => sql`(${numerator()} / nullif(${denominator()}, 0))`, terms };
  }
  if (op === 'sum' || op === 'difference' || op === 'product') {
    if (op === 'difference' && operands.length < 2) {
      ctx.problem(
        'dataset',
        at,
        `${who} is a difference of ${operands.length} measure; a difference needs at least two.`,
        'List at least two measures in derived.of.',
      );
      return null;
    }
    const operator = ` ${DERIVED_OPERATOR[op]} `;
    return {
      sql: () =>
        sql`(${sql.join(
          operands.map((o) => o()),
          sql.raw(operator),
        )})`,
      terms,
    };
  }
  ctx.problem(
    'dataset',
    ['measures', i, 'derived', 'op'],
    `${who} uses derived op "${String(op)}", which is not ratio, sum, difference or product.`,
    'Use ratio, sum, difference or product.',
  );
  return null;
}

function aggregate(
  ctx: PlanContext,
  i: number,
  who: string,
  m: { aggregate?: string | undefined; field?: string | undefined; filter?: unknown },
): PlannedMeasure | null {
  const agg = m.aggregate;
  if (agg === undefined) {
    ctx.problem(
      'dataset',
      ['measures', i],
      `${who} declares neither an aggregate nor a derived formula, so it computes nothing.`,
      'Set "aggregate" (count, count_distinct, sum, avg, min, max) or "derived".',
    );
    return null;
  }
  if (!Object.hasOwn(AGGREGATE_SQL, agg)) {
    ctx.problem(
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
    col = ctx.column(m.field, { origin: 'dataset', at: ['measures', i, 'field'], who, patchable: true });
    if (!col) return null;
  } else if (fn !== 'count') {
    ctx.problem('dataset', ['measures', i], `${who} aggregates ${fn} but names no field to aggregate.`, `Set "field" of the measure, or make it a count.`);
    return null;
  }
  if ((fn === 'sum' || fn === 'avg') && col && !NUMERIC.has(col.field.def.type)) {
    const computed = col.field.def.type === 'formula';
    ctx.problem(
      'dataset',
      ['measures', i, 'field'],
      computed
        ? `${who} takes the ${fn} of field "${col.field.name}", a ${col.field.def.type} field: it is computed per record, not stored, so there is no column to aggregate.`
        : `${who} takes the ${fn} of field "${col.field.name}", a ${col.field.def.type} field; ${fn} needs a number.`,
      `Aggregate a number/currency/percent field, or use count/count_distinct/min/max.`,
      { ref: { type: 'object', name: ctx.base?.name ?? '', member: col.field.name }, ...(computed ? { reportedByL1: true } : {}) },
    );
    return null;
  }
  const filter =
    m.filter !== undefined
      ? compileFilter(
          m.filter,
          ctx.filterContext('dataset', ['measures', i, 'filter'], `The filter of measure "${ctx.dataset.def.measures[i]?.name}" of ${ctx.label}`),
        )
      : undefined;
  // Casts make pg and PGlite agree: count is bigint (a string on pg), sum/avg of numeric is numeric (a string).
  const cast =
    fn === 'count' || fn === 'count_distinct' ? 'int' : fn === 'sum' || fn === 'avg' || (col && NUMERIC.has(col.field.def.type)) ? 'float8' : undefined;
  const build = () => {
    // count(field) counts non-null values (defect class #29: it once compiled to count(*)).
    const inner = fn === 'count_distinct' ? sql`count(distinct ${col?.sql()})` : col ? sql`${sql.raw(AGGREGATE_SQL[fn])}(${col.sql()})` : sql`count(*)`;
    const filtered = filter ? sql`${inner} filter (where ${filter()})` : inner;
    // A sum over no rows (a group the measure's filter empties) is its identity 0, as ObjectStack's executor fills it.
    const filled = fn === 'sum' ? sql`coalesce(${filtered}, 0)` : filtered;
    return cast ? sql`(${filled})::${sql.raw(cast)}` : filled;
  };
  return { sql: build, terms: 1 };
}
