import { describe, expect, it } from 'vitest';
import type { FormViewDef, ListViewDef } from './schemas.ts';
import { formViewFieldMentions, listViewFieldMentions, normalizeSort, visitFormViewFields, visitListViewFields } from './view-fields.ts';

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

describe('visitListViewFields / visitFormViewFields', () => {
  const lists: ListViewDef[] = [
    { columns: ['a', { field: 'b' }], filter: { c: 1, $or: [] }, calendar: { startDateField: 'd', titleField: 'e' } },
    { filter: [{ field: 'f' }], sort: 'g desc, h', searchableFields: ['i'], grouping: { fields: ['j', { field: 'k' }] } },
    { sort: [{ field: 'l' }, 'm desc', ' n '], kanban: { groupByField: 'o', columns: ['p', 3] }, gallery: { coverField: '', fields: ['q'] } },
    { timeline: { startDateField: 'r', groupByField: 's', visibleFields: ['t'] }, map: { locationField: 'u' }, tree: { parentField: 'v' } },
    {},
  ] as ListViewDef[];

  it('visit the fields and slots of every mention, in the mentions order', () => {
    for (const view of lists) {
      const seen: string[] = [];
      expect(visitListViewFields(view, (field, slot) => seen.push(`${field}@${slot}`) > 0)).toBe(true);
      expect(seen).toEqual(listViewFieldMentions(view).map((m) => `${m.field}@${m.slot}`));
    }
    const forms = [{ sections: [{ fields: ['a', { field: 'b' }] }, {}] }, { groups: [{ fields: ['c'] }] }, {}] as FormViewDef[];
    for (const view of forms) {
      const seen: string[] = [];
      expect(visitFormViewFields(view, (field) => seen.push(field) > 0)).toBe(true);
      expect(seen).toEqual(formViewFieldMentions(view).map((m) => m.field));
    }
  });

  it('stop at the first field the visitor refuses', () => {
    const seen: string[] = [];
    expect(visitListViewFields(lists[1]!, (field) => seen.push(field) < 2)).toBe(false);
    expect(seen).toEqual(['f', 'g']);
  });
});
