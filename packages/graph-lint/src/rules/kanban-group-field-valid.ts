import { allFieldNames, pointer, resolveField } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { listing, q, suggest } from '../describe-names.ts';

/** Field types a kanban can group by (computeViewReferenceDiagnostics, with radio and multiselect spelled as FieldType does). */
export const GROUPABLE_TYPES: ReadonlySet<string> = new Set(['select', 'multiselect', 'radio', 'boolean', 'lookup', 'master_detail', 'user']);

/** A kanban block whose groupByField names a field the object lacks, or one of a type a board cannot group by. */
export default defineRule({
  meta: {
    name: 'kanban-group-field-valid',
    codes: ['kanban_group_field_invalid'],
    docs: 'A kanban groupByField names a select-like, boolean or relation field of the object.',
  },
  run(graph, emit) {
    for (const v of graph.views.values()) {
      if (v.invalid || !v.list || v.object === undefined) continue;
      const block = v.list.kanban;
      if (block === undefined) continue;
      const obj = graph.objects.get(v.object);
      if (!obj || obj.invalid) continue;
      const g = (block as Record<string, unknown>).groupByField;
      // An absent groupByField is L2's layout_without_binding (one defect, one issue); L1 judges the field named.
      if (typeof g !== 'string' || g === '') continue;
      const field = resolveField(obj, g);
      if (field && (field.invalid || GROUPABLE_TYPES.has(field.def.type))) continue;
      // Built only for a finding (most boards group by a groupable field).
      const groupable = allFieldNames(obj).filter((n) => GROUPABLE_TYPES.has(resolveField(obj, n)?.def.type ?? ''));
      const artifact = { type: 'view', name: v.name };
      const path = pointer('kanban', 'groupByField');
      const s = suggest(g, groupable, path);
      emit({
        code: 'kanban_group_field_invalid',
        artifact,
        ref: { type: 'object', name: obj.name, member: g },
        message: field
          ? `View ${q(v.name)} groups its kanban by ${q(g)}, a ${field.def.type} field; a board can only group by select, multiselect, radio, boolean, lookup, master_detail or user fields (groupable: ${listing(groupable)}).`
          : `View ${q(v.name)} groups its kanban by ${q(g)}, which object ${q(obj.name)} does not have (groupable fields: ${listing(groupable)}).`,
        fix: `Set kanban.groupByField to one of: ${listing(groupable)}.`,
        path,
        ...s,
      });
    }
  },
});
