import { describe, expect, it } from 'vitest';
import { listViewFieldMentions, normalizeSort } from './view-fields.ts';

describe('normalizeSort', () => {
  it('accepts the legacy "field desc" string, direction alias and bare strings', () => {
    expect(normalizeSort('amount desc, title').map((s) => [s.field, s.order])).toEqual([
      ['amount', 'desc'],
      ['title', 'asc'],
    ]);
    expect(normalizeSort([{ field: 'a', direction: 'DESC' }, 'b']).map((s) => [s.field, s.order, s.path])).toEqual([
      ['a', 'desc', '/sort/0/field'],
      ['b', 'asc', '/sort/1'],
    ]);
  });
});

describe('listViewFieldMentions', () => {
  it('finds columns, filters (both syntaxes), blocks', () => {
    const m = listViewFieldMentions({ columns: ['a', { field: 'b' }], filter: { c: 1, $or: [] }, calendar: { startDateField: 'd', titleField: 'e' } });
    expect(m.map((x) => `${x.field}@${x.path}`)).toEqual([
      'a@/columns/0',
      'b@/columns/1/field',
      'c@/filter/c',
      'd@/calendar/startDateField',
      'e@/calendar/titleField',
    ]);
  });
});
