import { formViewFieldMentions, listViewFieldMentions, type ObjectNode, pointer, resolveField, visitFormViewFields, visitListViewFields } from '@bvl/metadata';
import { checkField } from '../check-field.ts';
import { defineRule } from '../define-rule.ts';
import { q } from '../describe-names.ts';

/**
 * Every field a view names exists on its object: list columns, filter, sort (#9257),
 * searchableFields (#4830), grouping, userFilters, per-type blocks (calendar/timeline/gantt/…
 * date and title fields), and form section fields (#2578). The kanban group field has its own rule.
 */
export default defineRule({
  meta: {
    name: 'view-fields-exist',
    codes: ['unknown_field', 'unknown_display_field'],
    docs: "Every field a view names exists on the view's object.",
  },
  run(graph, emit) {
    for (const v of graph.views.values()) {
      if (v.invalid || v.object === undefined) continue;
      const obj = graph.objects.get(v.object);
      if (!obj) continue;
      // Most views name only fields of their object: learn that without building one mention.
      if (
        !obj.invalid &&
        !hasUserFilterFields(v.list) &&
        (v.list
          ? visitListViewFields(v.list, (field, slot) => slot === 'kanban.groupByField' || resolves(obj, field))
          : v.form
            ? visitFormViewFields(v.form, (field) => resolves(obj, field))
            : true)
      )
        continue;
      const mentions = v.list ? listViewFieldMentions(v.list).filter((m) => m.slot !== 'kanban.groupByField') : v.form ? formViewFieldMentions(v.form) : [];
      if (v.list) {
        const uf = (v.list as Record<string, unknown>).userFilters;
        const fields = typeof uf === 'object' && uf !== null ? (uf as { fields?: unknown }).fields : undefined;
        if (Array.isArray(fields)) {
          fields.forEach((f, i) => {
            const name =
              typeof f === 'string'
                ? f
                : typeof f === 'object' && f !== null && typeof (f as { field?: unknown }).field === 'string'
                  ? (f as { field: string }).field
                  : undefined;
            if (name !== undefined)
              mentions.push({ field: name, path: pointer('userFilters', 'fields', i, ...(typeof f === 'string' ? [] : ['field'])), slot: 'user filter' });
          });
        }
      }
      const seen = new Set<string>();
      const subject = () => `View ${q(v.name)}`;
      for (const m of mentions) {
        // Most mentions name a field of the object itself: nothing to report, so no key or context.
        if (!obj.invalid && typeof m.field === 'string' && !m.field.includes('.') && resolveField(obj, m.field)) continue;
        const key = `${m.path}\u0000${m.field}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const f = checkField(graph, obj, m.field, {
          artifact: { type: 'view', name: v.name },
          subject,
          slot: m.slot,
          path: m.path,
          patchable: m.patchable,
          // A form section field the object lacks is silently not rendered (#2578; ObjectStack's validateFormLayout only warns).
          code: m.slot === 'form field' ? 'unknown_display_field' : 'unknown_field',
        });
        if (f) emit(f);
      }
    }
  },
});

/** Whether a mention is no finding at a glance: an undotted field of the object (as the check's own first test). */
function resolves(obj: ObjectNode, field: unknown): boolean {
  return typeof field === 'string' && !field.includes('.') && resolveField(obj, field) !== undefined;
}

/** Whether a list view has userFilters.fields (mentions the check adds to the view's own). */
function hasUserFilterFields(list: unknown): boolean {
  const uf = typeof list === 'object' && list !== null ? (list as Record<string, unknown>).userFilters : undefined;
  return typeof uf === 'object' && uf !== null && Array.isArray((uf as { fields?: unknown }).fields);
}
