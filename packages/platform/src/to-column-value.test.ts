import { describe, expect, it } from 'vitest';
import type { ColumnType } from './column-type.ts';
import { toColumnValue } from './to-column-value.ts';

const NOW = new Date('2026-03-15T10:30:00Z');
const t = (base: ColumnType['base'], array = false): ColumnType => ({ base, array });
const cel = (source: string) => ({ dialect: 'cel', source });

describe('toColumnValue', () => {
  const table: Array<[string, unknown, ColumnType, unknown]> = [
    ['null stays null', null, t('numeric'), null],
    ['a CEL day on a date column', cel('daysAgo(2)'), t('date'), '2026-03-13'],
    ['a CEL instant on a timestamptz column', cel('daysAgo(1) + duration("2h")'), t('timestamptz'), '2026-03-14T02:00:00.000Z'],
    ['jsonb gets JSON text', { lat: 1, lng: 2 }, t('jsonb'), '{"lat":1,"lng":2}'],
    ['a jsonb list too', [1, 2], t('jsonb'), '[1,2]'],
    ['a scalar into an array column', 'red', t('text', true), ['red']],
    ['a list into an array column', ['a', 'b'], t('text', true), ['a', 'b']],
    ['a number into text', 42, t('text'), '42'],
    ['an object into text is JSON', { a: 1 }, t('text'), '{"a":1}'],
    ['a bad numeric string is passed on for the database to judge', 'abc', t('numeric'), 'abc'],
  ];
  it.each(table)('%s', (_label, value, type, expected) => expect(toColumnValue(value, type, NOW)).toEqual({ ok: true, value: expected }));

  it('refuses a list for a scalar non-text column', () =>
    expect(toColumnValue([1], t('numeric'), NOW)).toMatchObject({ ok: false, error: /a list is not a numeric value/ }));
  it('refuses CEL outside the subset', () => expect(toColumnValue(cel('record.x'), t('text'), NOW)).toMatchObject({ ok: false }));
  it('refuses a duration as a value', () =>
    expect(toColumnValue(cel('duration("1h")'), t('timestamptz'), NOW)).toMatchObject({ ok: false, error: /duration/ }));
});
