import { sql } from 'kysely';
import type { DateGranularity } from './dataset-plan.ts';
import type { DeferredSql } from './deferred-sql.ts';
import { isSqlIdentifier } from './pg-sql.ts';
import type { PlanContext } from './plan-context.ts';

const GRANULARITIES: ReadonlySet<string> = new Set(['day', 'week', 'month', 'quarter', 'year']);
const TEMPORAL = new Set(['date', 'datetime']);

/**
 * A dimension's SQL, as ObjectStack's analytics groups it: a dimension typed `date` is a time
 * dimension, bucketed by the selection's granularity (a widget's `options.dateGranularity`), else
 * its own `dateGranularity`, else not at all; any other dimension groups by the raw value and its
 * `dateGranularity` is ignored (dataset-compiler.ts gives granularities to time dimensions only).
 * Undefined when it cannot compile (the problem is reported on the context); the SQL is built when called.
 */
export function planDimension(ctx: PlanContext, name: string, selected?: DateGranularity): DeferredSql | undefined {
  const i = ctx.indexOf('dimensions', name);
  const d = ctx.dataset.dimensions.get(name);
  if (!d) return undefined;
  const who = `Dimension "${name}" of ${ctx.label}`;
  if (!isSqlIdentifier(name)) {
    ctx.problem(
      'dataset',
      ['dimensions', i, 'name'],
      `${who} is not a usable SQL column name, so it cannot name an output column.`,
      'Rename the dimension to letters, digits and _ (at most 63 characters).',
    );
  }
  if (typeof d.field !== 'string') return undefined;
  const col = ctx.column(d.field, { origin: 'dataset', at: ['dimensions', i, 'field'], who, patchable: true });
  if (!col) return undefined;
  if (d.type !== 'date') return col.sql;
  const g = selected ?? d.dateGranularity;
  if (g === undefined) return col.sql;
  if (!GRANULARITIES.has(g)) {
    ctx.problem(
      'dataset',
      ['dimensions', i, 'dateGranularity'],
      `${who} has dateGranularity "${String(g)}", which is not day, week, month, quarter or year.`,
      'Use day, week, month, quarter or year.',
    );
    return undefined;
  }
  if (!TEMPORAL.has(col.field.def.type)) {
    ctx.problem(
      selected ? 'selection' : 'dataset',
      selected ? [] : ['dimensions', i, 'type'],
      `${who} is typed "date" and bucketed by ${g}, but field "${col.field.name}" is a ${col.field.def.type} field, not a date or datetime.`,
      `Point ${who.toLowerCase()} at a date field, or drop its "type": "date".`,
    );
    return undefined;
  }
  // The granularity is one of five fixed words, so it is inlined: GROUP BY must see the same expression as SELECT.
  return () => sql`date_trunc(${sql.lit(g)}, ${col.sql()})`;
}
