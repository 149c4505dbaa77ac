import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DATE_MACRO_NAMES, dateMacroSql, MAX_MACRO_COUNT, placeholderName } from './date-macro-sql.ts';
import { PG_SQL } from './pg-sql.ts';

const text = (name: string) => {
  const m = dateMacroSql(name);
  if (m === undefined || m === 'too_large') throw new Error(`${name} did not resolve`);
  const c = sql`${m.sql}`.compile(PG_SQL);
  return { kind: m.kind, sql: c.sql, params: c.parameters };
};

describe('date macros', () => {
  it('reads {name} and $-prefixed {name} placeholders only when the whole value is one', () => {
    expect(placeholderName('{today}')).toBe('today');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the format's `${…}` placeholder spelling.
    expect(placeholderName('${30_days_ago}')).toBe('30_days_ago');
    expect(placeholderName('due {today}')).toBeUndefined();
    expect(placeholderName('{to-day}')).toBeUndefined();
  });

  it('resolves every fixed name to SQL on the database clock', () => {
    for (const name of DATE_MACRO_NAMES) {
      const { sql: s } = text(name);
      expect(s, name).toMatch(/current_date|now\(\)/);
      expect(s, name).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    }
  });

  it.each([
    ['today', 'day', 'current_date', []],
    ['now', 'instant', 'now()', []],
    ['week_start', 'day', "(date_trunc('week', current_date::timestamp))::date", []],
    ['last_quarter_end', 'day', "(date_trunc('quarter', current_date::timestamp) - interval '1 day')::date", []],
    ['last_month_start', 'day', "((date_trunc('month', current_date::timestamp) + -1 * interval '1 month'))::date", []],
    ['next_year_start', 'day', "((date_trunc('year', current_date::timestamp) + 1 * interval '1 year'))::date", []],
    ['30_days_ago', 'day', '(current_date - $1::int)', [30]],
    ['1_week_from_now', 'day', '(current_date + 7 * $1::int)', [1]],
    ['6_months_ago', 'day', '(current_date - make_interval(months => $1::int))::date', [6]],
    ['15_minutes_ago', 'instant', '(now() - make_interval(mins => $1::int))', [15]],
    ['2_hours_from_now', 'instant', '(now() + make_interval(hours => $1::int))', [2]],
  ])('%s → %s %s', (name, kind, expected, params) => {
    expect(text(name)).toEqual({ kind, sql: expected, params });
  });

  it('refuses names outside the vocabulary, and counts too large to be meaningful', () => {
    expect(dateMacroSql('start_of_week')).toBeUndefined();
    expect(dateMacroSql('3_fortnights_ago')).toBeUndefined();
    expect(dateMacroSql(`${MAX_MACRO_COUNT + 1}_days_ago`)).toBe('too_large');
    expect(dateMacroSql('99999999999999999999_days_ago')).toBe('too_large');
  });
});
