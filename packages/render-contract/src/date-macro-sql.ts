import { type RawBuilder, sql } from 'kysely';

/** How a placeholder resolves: a calendar day, or an instant (a timestamp). */
export type MacroKind = 'day' | 'instant';

/** A placeholder resolved to a SQL expression relative to the database's clock. */
export interface ResolvedMacro {
  readonly sql: RawBuilder<unknown>;
  readonly kind: MacroKind;
}

const PERIODS = ['week', 'month', 'quarter', 'year'] as const;
type Period = (typeof PERIODS)[number];
/** Postgres interval text has no `quarter` unit. */
const INTERVAL: Readonly<Record<Period, string>> = { week: '1 week', month: '1 month', quarter: '3 months', year: '1 year' };
const OFFSET: Readonly<Record<string, number>> = { last: -1, current: 0, next: 1 };

/** Bounded so the interval arithmetic cannot overflow on the database. */
export const MAX_MACRO_COUNT = 100_000;

/** Context placeholders and the session setting each reads (the platform sets them per transaction; unset means NULL). */
export const CONTEXT_TOKENS: Readonly<Record<string, string>> = { current_user_id: 'bvl.current_user_id', current_org_id: 'bvl.current_org_id' };

/** The fixed date macro names (ObjectStack `date-macros.zod.ts` vocabulary), for suggestions. */
export const DATE_MACRO_NAMES: readonly string[] = [
  'today',
  'yesterday',
  'tomorrow',
  'now',
  ...['current', 'last', 'next'].flatMap((w) => PERIODS.flatMap((p) => [`${w}_${p}_start`, `${w}_${p}_end`])),
  ...PERIODS.flatMap((p) => [`${p}_start`, `${p}_end`]),
];

const PARAM_RE = /^(\d+)_(minute|hour|day|week|month|year)s?_(ago|from_now)$/;
const PERIOD_RE = /^(?:(current|last|next)_)?(week|month|quarter|year)_(start|end)$/;

/** `{today}` or `${today}` → `today`; anything else → undefined. */
export function placeholderName(value: string): string | undefined {
  return /^\$?\{([A-Za-z0-9_]+)\}$/.exec(value)?.[1];
}

/**
 * Resolves a date macro (`today`, `current_week_start`, `30_days_ago`, …) to a SQL expression
 * relative to `current_date` / `now()`, never to a JS clock: the compiled query is the same
 * whenever it is compiled, and means "now" when it runs. Weeks start on Monday (Postgres
 * date_trunc), a `*_end` is the period's last day. Returns undefined for a name outside the
 * vocabulary, or `'too_large'` for a count over {@link MAX_MACRO_COUNT}.
 */
export function dateMacroSql(name: string): ResolvedMacro | 'too_large' | undefined {
  switch (name) {
    case 'today':
      return { sql: sql`current_date`, kind: 'day' };
    case 'yesterday':
      return { sql: sql`(current_date - 1)`, kind: 'day' };
    case 'tomorrow':
      return { sql: sql`(current_date + 1)`, kind: 'day' };
    case 'now':
      return { sql: sql`now()`, kind: 'instant' };
  }
  const period = PERIOD_RE.exec(name);
  if (period) {
    const [, which = 'current', unit, edge] = period as unknown as [string, string | undefined, Period, 'start' | 'end'];
    const offset = OFFSET[which] ?? 0;
    // Built only from the closed tables above, never from input: safe to inline.
    const start = `date_trunc('${unit}', current_date::timestamp)`;
    const shifted = (n: number) => (n === 0 ? start : `(${start} + ${n} * interval '${INTERVAL[unit]}')`);
    const text = edge === 'start' ? `(${shifted(offset)})::date` : `(${shifted(offset + 1)} - interval '1 day')::date`;
    return { sql: sql.raw(text), kind: 'day' };
  }
  const param = PARAM_RE.exec(name);
  if (param) {
    const [, digits = '0', unit = 'day', direction] = param;
    const n = Number(digits);
    if (!Number.isSafeInteger(n) || n > MAX_MACRO_COUNT) return 'too_large';
    const sign = sql.raw(direction === 'ago' ? '-' : '+');
    switch (unit) {
      case 'day':
        return { sql: sql`(current_date ${sign} ${n}::int)`, kind: 'day' };
      case 'week':
        return { sql: sql`(current_date ${sign} 7 * ${n}::int)`, kind: 'day' };
      case 'month':
      case 'year':
        return { sql: sql`(current_date ${sign} make_interval(${sql.raw(`${unit}s`)} => ${n}::int))::date`, kind: 'day' };
      default:
        return { sql: sql`(now() ${sign} make_interval(${sql.raw(unit === 'hour' ? 'hours' : 'mins')} => ${n}::int))`, kind: 'instant' };
    }
  }
  return undefined;
}
