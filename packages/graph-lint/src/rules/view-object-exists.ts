import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, objectChoices, q, suggest } from '../describe-names.ts';

/** A view bound to an object that does not exist (or bound to none at all). */
export default defineRule({
  meta: { name: 'view-object-exists', codes: ['dangling_object'], docs: "Every object-bound view's object exists." },
  run(graph, emit) {
    for (const v of graph.views.values()) {
      if (v.invalid) continue;
      const cfg = v.list ?? v.form;
      const provider = cfg?.data?.provider;
      if (provider !== undefined && provider !== 'object') continue;
      if (v.object === undefined) {
        emit({
          code: 'dangling_object',
          artifact: { type: 'view', name: v.name },
          message: `View ${q(v.name)} is bound to no object (no data.object, objectName or object), so it has nothing to read.`,
          fix: `Set data: {"provider": "object", "object": "<object name>"} on view ${q(v.name)}.`,
          path: '',
        });
        continue;
      }
      if (graph.objects.has(v.object)) continue;
      // Point at the key that actually holds the binding; a view item's own `object` sits outside its config.
      const path =
        cfg?.data?.object === v.object
          ? pointer('data', 'object')
          : cfg?.data?.objectName === v.object
            ? pointer('data', 'objectName')
            : cfg?.objectName === v.object
              ? pointer('objectName')
              : cfg?.object === v.object
                ? pointer('object')
                : undefined;
      const { clause, candidates } = objectChoices(graph, v.object);
      const s = suggest(v.object, candidates, path);
      emit({
        code: 'dangling_object',
        artifact: { type: 'view', name: v.name },
        ref: { type: 'object', name: v.object },
        message: `View ${q(v.name)} reads object ${q(v.object)}, which does not exist (${clause}).${didYouMeanText(s.suggestions)}`,
        fix: s.suggestions?.length
          ? `Bind the view to ${q(s.suggestions[0])}, or create object ${q(v.object)}.`
          : `Create object ${q(v.object)}, or bind the view to an existing object.`,
        path: path ?? '',
        ...s,
      });
    }
  },
});
