import { type FieldNode, type Graph, type ObjectNode, pointer } from '@bvl/metadata';
import { defineRule, type Finding } from '../define-rule.ts';
import { q } from '../describe-names.ts';
import { resolvePath } from '../resolve-path.ts';

/** Field types a date axis or a date filter can use. */
const DATE_TYPES: ReadonlySet<string> = new Set(['date', 'datetime']);
/** Types whose stored value type is not known here (a formula's result): not judged. */
const OPAQUE: ReadonlySet<string> = new Set(['formula']);

/** The view blocks whose keys are date axes. */
const DATE_KEYS: ReadonlyArray<readonly [block: string, keys: readonly string[]]> = [
  ['calendar', ['startDateField', 'endDateField']],
  ['timeline', ['startDateField', 'endDateField']],
  ['gantt', ['startDateField', 'endDateField']],
];

function resolved(graph: Graph, object: ObjectNode, field: string): FieldNode | undefined {
  if (object.invalid) return undefined;
  const r = resolvePath(graph, object, field);
  return r.ok && !r.field.invalid && !DATE_TYPES.has(r.field.def.type) && !OPAQUE.has(r.field.def.type) ? r.field : undefined;
}

/**
 * A date axis or a date filter on a field that is not a date: a calendar, timeline or gantt
 * positions records on the axis fields (a text or number field places nothing), and a dashboard's
 * date range compares its field with date bounds. Missing fields are other rules'.
 */
export default defineRule({
  meta: {
    name: 'date-fields-are-dates',
    codes: ['field_type_mismatch'],
    docs: 'Calendar/timeline/gantt date keys and dashboard date filters name date or datetime fields.',
  },
  run(graph, emit) {
    for (const v of graph.views.values()) {
      if (v.invalid || !v.list || v.object === undefined) continue;
      const obj = graph.objects.get(v.object);
      if (!obj) continue;
      const body = v.list as Record<string, unknown>;
      for (const [block, keys] of DATE_KEYS) {
        const b = body[block];
        if (typeof b !== 'object' || b === null) continue;
        for (const key of keys) {
          const name = (b as Record<string, unknown>)[key];
          if (typeof name !== 'string') continue;
          const field = resolved(graph, obj, name);
          if (!field) continue;
          emit({
            code: 'field_type_mismatch',
            artifact: { type: 'view', name: v.name },
            ref: { type: 'object', name: obj.name, member: name },
            message: `View ${q(v.name)} puts its ${block} on ${block}.${key} ${q(name)}, a ${field.def.type} field of ${q(obj.name)}: the ${block} positions records by date, so nothing lands on it.`,
            fix: `Set ${block}.${key} to a date or datetime field of ${q(obj.name)}.`,
            path: pointer(block, key),
          } satisfies Finding);
        }
      }
    }
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      const date = d.def.dateRange?.field;
      const filters: Array<{ field: string; path: string; label: string; binding: string }> = [];
      if (typeof date === 'string') filters.push({ field: date, path: pointer('dateRange', 'field'), label: 'date range', binding: 'dateRange' });
      for (const [i, g] of (d.def.globalFilters ?? []).entries())
        if ((g as { type?: unknown }).type === 'date')
          filters.push({
            field: g.field,
            path: pointer('globalFilters', i, 'field'),
            label: `date filter ${q(g.name ?? g.field)}`,
            binding: g.name ?? g.field,
          });
      if (filters.length === 0) continue;
      // Keys reported on this dashboard, made at its first finding (most dashboards have none).
      let reported: Set<string> | undefined;
      for (const w of d.widgets) {
        const ds = w.def.dataset === undefined ? undefined : graph.datasets.get(w.def.dataset);
        const obj = ds?.object === undefined ? undefined : graph.objects.get(ds.object);
        if (!obj) continue;
        for (const f of filters) {
          const bound = w.def.filterBindings?.[f.binding];
          if (bound === false) continue;
          const name = typeof bound === 'string' ? bound : f.field;
          const field = resolved(graph, obj, name);
          if (!field) continue;
          const key = `${f.path}\u0000${obj.name}\u0000${name}`;
          reported ??= new Set();
          if (reported.has(key)) continue;
          reported.add(key);
          emit({
            code: 'field_type_mismatch',
            artifact: { type: 'dashboard', name: d.name },
            ref: { type: 'object', name: obj.name, member: name },
            message: `The ${f.label} of dashboard ${q(d.name)} filters widget ${q(w.id)} on ${q(name)}, a ${field.def.type} field of ${q(obj.name)}: a date range compares it with date bounds, which a ${field.def.type} never meets.`,
            fix: `Point the ${f.label} at a date or datetime field, or rebind widget ${q(w.id)} with filterBindings.`,
            path: f.path,
          });
        }
      }
    }
  },
});
