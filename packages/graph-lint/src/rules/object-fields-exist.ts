import { pointer } from '@bvl/metadata';
import { checkField } from '../check-field.ts';
import { defineRule, type Finding } from '../define-rule.ts';
import { q } from '../describe-names.ts';

/**
 * Fields an object names about itself exist: `searchableFields` (stale entries silently narrow
 * search, #4830/#6674) and `highlightFields` (ObjectStack's lint errs: object-field-ref-unknown)
 * are unknown_field; the display pointers `nameField` (the record title) and `stageField` — a
 * dangling one is left out by the renderer and ObjectStack only warns about it
 * (validateSemanticRoles, validateRecordTitle: advisory) — are unknown_display_field.
 */
export default defineRule({
  meta: {
    name: 'object-fields-exist',
    codes: ['unknown_field', 'unknown_display_field'],
    docs: "An object's nameField, searchableFields, highlightFields and stageField name its own fields.",
  },
  run(graph, emit) {
    for (const obj of graph.objects.values()) {
      if (obj.invalid || obj.platform) continue;
      const def = obj.def as Record<string, unknown>;
      const mentions: Array<{ field: string; path: string; slot: string; display: boolean }> = [];
      for (const key of ['nameField', 'stageField', 'displayNameField'] as const)
        if (typeof def[key] === 'string') mentions.push({ field: def[key] as string, path: pointer(key), slot: key, display: true });
      for (const key of ['searchableFields', 'highlightFields'] as const) {
        const list = def[key];
        if (Array.isArray(list)) list.forEach((f, i) => typeof f === 'string' && mentions.push({ field: f, path: pointer(key, i), slot: key, display: false }));
      }
      for (const m of mentions) {
        const f: Finding | undefined = checkField(graph, obj, m.field, {
          artifact: { type: 'object', name: obj.name },
          subject: () => `Object ${q(obj.name)}`,
          slot: m.slot,
          path: m.path,
          code: m.display ? 'unknown_display_field' : 'unknown_field',
        });
        if (f) emit(f);
      }
    }
  },
});
