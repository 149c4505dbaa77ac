import { pointer } from './json-pointer.ts';
import type { FormViewDef, ListViewDef } from './schemas.ts';

/** A field a view mentions, with the place (pointer into the view config) it is mentioned. */
export interface FieldMention {
  readonly field: string;
  readonly path: string;
  /** What kind of slot mentions it, for messages: "column", "filter", "sort", … */
  readonly slot: string;
  /** False when the pointer names more than this field (a legacy `"a desc, b"` sort string): no whole-value patch then. */
  readonly patchable?: boolean;
}

/** Sort entries in the canonical `{field, order}` form; the legacy `"field desc"` string is accepted. */
export function normalizeSort(sort: ListViewDef['sort']): Array<{ field: string; order: 'asc' | 'desc'; path: string; patchable: boolean }> {
  if (sort === undefined) return [];
  const entries =
    typeof sort === 'string'
      ? sort
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : sort;
  return entries.map((e, i) => {
    const path = typeof sort === 'string' ? pointer('sort') : pointer('sort', i, ...(typeof e === 'string' ? [] : ['field']));
    if (typeof e === 'string') {
      const [field = '', dir = 'asc'] = e.trim().split(/\s+/);
      return { field, order: dir.toLowerCase().startsWith('desc') ? 'desc' : 'asc', path, patchable: typeof sort !== 'string' };
    }
    const dir = (e.order ?? e.direction ?? 'asc').toLowerCase();
    return { field: e.field, order: dir.startsWith('desc') ? 'desc' : 'asc', path, patchable: true };
  });
}

/** Column field names of a list view, with their pointers. */
export function listColumns(view: ListViewDef): FieldMention[] {
  return (view.columns ?? []).map((c, i) =>
    typeof c === 'string'
      ? { field: c, path: pointer('columns', i), slot: 'column' }
      : { field: c.field, path: pointer('columns', i, 'field'), slot: 'column' },
  );
}

/** Filter rows of a list view (array form) or the keys of a Mongo-style filter object. */
export function listFilterFields(view: ListViewDef): FieldMention[] {
  const f = view.filter;
  if (f === undefined) return [];
  if (Array.isArray(f)) return f.map((row, i) => ({ field: row.field, path: pointer('filter', i, 'field'), slot: 'filter' }));
  return Object.keys(f)
    .filter((k) => !k.startsWith('$'))
    .map((k) => ({ field: k, path: pointer('filter', k), slot: 'filter' }));
}

/** Type-specific blocks and the date/title/group fields each binds. */
export const BLOCK_FIELDS: Readonly<Record<string, readonly string[]>> = {
  kanban: ['groupByField', 'summarizeField', 'titleField'],
  calendar: ['startDateField', 'endDateField', 'titleField', 'colorField'],
  timeline: ['startDateField', 'endDateField', 'titleField', 'groupByField', 'colorField'],
  gantt: ['startDateField', 'endDateField', 'titleField', 'progressField', 'dependenciesField'],
  gallery: ['coverField', 'titleField'],
  map: ['locationField', 'titleField', 'latitudeField', 'longitudeField'],
  tree: ['parentField', 'labelField'],
};

/**
 * Visits the field of every mention {@link listViewFieldMentions} gives, in its order, with its slot
 * — no mention or pointer is built. Stops, returning false, when `visit` returns false: a rule learns
 * that every field a view names resolves without building one mention (most views have no finding).
 */
export function visitListViewFields(view: ListViewDef, visit: (field: string, slot: string) => boolean): boolean {
  const columns = view.columns;
  if (columns)
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i]!;
      if (!visit(typeof c === 'string' ? c : c.field, 'column')) return false;
    }
  const f = view.filter;
  if (Array.isArray(f)) {
    for (let i = 0; i < f.length; i++) if (!visit(f[i]!.field, 'filter')) return false;
  } else if (f !== undefined) {
    for (const k of Object.keys(f)) if (!k.startsWith('$') && !visit(k, 'filter')) return false;
  }
  const sort = view.sort;
  if (typeof sort === 'string') {
    for (const s of normalizeSort(sort)) if (!visit(s.field, 'sort')) return false;
  } else if (sort !== undefined)
    for (let i = 0; i < sort.length; i++) {
      const e = sort[i]!;
      if (!visit(typeof e === 'string' ? (e.trim().split(/\s+/)[0] ?? '') : e.field, 'sort')) return false;
    }
  const searchable = view.searchableFields;
  if (searchable) for (let i = 0; i < searchable.length; i++) if (!visit(searchable[i]!, 'searchable field')) return false;
  const grouping = view.grouping?.fields;
  if (grouping)
    for (let i = 0; i < grouping.length; i++) {
      const g = grouping[i]!;
      if (!visit(typeof g === 'string' ? g : g.field, 'grouping')) return false;
    }
  for (const block in BLOCK_FIELDS) {
    const b = (view as Record<string, unknown>)[block];
    if (typeof b !== 'object' || b === null) continue;
    const rec = b as Record<string, unknown>;
    for (const k of BLOCK_FIELDS[block]!) {
      const v = rec[k];
      if (typeof v === 'string' && v !== '' && !visit(v, `${block}.${k}`)) return false;
    }
    for (const listKey of BLOCK_LIST_KEYS) {
      const arr = rec[listKey];
      if (Array.isArray(arr))
        for (let i = 0; i < arr.length; i++) {
          const v = arr[i];
          if (typeof v === 'string' && !visit(v, `${block}.${listKey}`)) return false;
        }
    }
  }
  return true;
}

const BLOCK_LIST_KEYS = ['columns', 'fields', 'visibleFields'] as const;

/** Every field a list view names: columns, filter, sort, searchable, grouping and per-type blocks. */
export function listViewFieldMentions(view: ListViewDef): FieldMention[] {
  const out: FieldMention[] = [...listColumns(view), ...listFilterFields(view)];
  for (const s of normalizeSort(view.sort)) out.push({ field: s.field, path: s.path, slot: 'sort', patchable: s.patchable });
  (view.searchableFields ?? []).forEach((f, i) => out.push({ field: f, path: pointer('searchableFields', i), slot: 'searchable field' }));
  (view.grouping?.fields ?? []).forEach((g, i) =>
    out.push(
      typeof g === 'string'
        ? { field: g, path: pointer('grouping', 'fields', i), slot: 'grouping' }
        : { field: g.field, path: pointer('grouping', 'fields', i, 'field'), slot: 'grouping' },
    ),
  );
  for (const [block, keys] of Object.entries(BLOCK_FIELDS)) {
    const b = (view as Record<string, unknown>)[block];
    if (typeof b !== 'object' || b === null) continue;
    const rec = b as Record<string, unknown>;
    for (const k of keys)
      if (typeof rec[k] === 'string' && rec[k] !== '') out.push({ field: rec[k] as string, path: pointer(block, k), slot: `${block}.${k}` });
    for (const listKey of BLOCK_LIST_KEYS) {
      const arr = rec[listKey];
      if (Array.isArray(arr))
        arr.forEach((f, i) => typeof f === 'string' && out.push({ field: f, path: pointer(block, listKey, i), slot: `${block}.${listKey}` }));
    }
  }
  return out;
}

/** Visits the field of every mention {@link formViewFieldMentions} gives, in its order; stops (false) when `visit` does. */
export function visitFormViewFields(view: FormViewDef, visit: (field: string) => boolean): boolean {
  const sections = view.sections ?? view.groups ?? [];
  for (let si = 0; si < sections.length; si++) {
    const fields = sections[si]!.fields ?? [];
    for (let fi = 0; fi < fields.length; fi++) {
      const f = fields[fi]!;
      if (!visit(typeof f === 'string' ? f : f.field)) return false;
    }
  }
  return true;
}

/** Every field a form view's sections (or `groups`) name. */
export function formViewFieldMentions(view: FormViewDef): FieldMention[] {
  const key = view.sections ? 'sections' : 'groups';
  const sections = view.sections ?? view.groups ?? [];
  const out: FieldMention[] = [];
  sections.forEach((s, si) =>
    (s.fields ?? []).forEach((f, fi) =>
      out.push(
        typeof f === 'string'
          ? { field: f, path: pointer(key, si, 'fields', fi), slot: 'form field' }
          : { field: f.field, path: pointer(key, si, 'fields', fi, 'field'), slot: 'form field' },
      ),
    ),
  );
  return out;
}

/**
 * The view filter operators of the format (ObjectStack VIEW_FILTER_OPERATORS) and the aliases it
 * accepts. The platform's data engine compiles every one of them (its operator table is typed by this list).
 */
export const VIEW_FILTER_OPERATOR_NAMES = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'icontains',
  'starts_with',
  'ends_with',
  'greater_than',
  'less_than',
  'greater_than_or_equal',
  'less_than_or_equal',
  'in',
  'not_in',
  'is_empty',
  'is_not_empty',
  'is_null',
  'is_not_null',
  'before',
  'after',
  'between',
  'eq',
  'ne',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'nin',
] as const;

/** One view filter operator name (the format's or an accepted alias). */
export type ViewFilterOperator = (typeof VIEW_FILTER_OPERATOR_NAMES)[number];
