import { pointer, resolveField } from '@bvl/metadata';
import { checkField } from '../check-field.ts';
import { defineRule } from '../define-rule.ts';
import { q } from '../describe-names.ts';

/**
 * Base (undotted) measure and dimension fields exist on the dataset's object. Dotted paths are the
 * dataset compiler's (L2) to judge, since they depend on `include`.
 */
export default defineRule({
  meta: { name: 'dataset-fields-exist', codes: ['unknown_field'], docs: "A dataset's base measure/dimension fields exist on its object." },
  run(graph, emit) {
    for (const ds of graph.datasets.values()) {
      if (ds.invalid || ds.object === undefined) continue;
      const obj = graph.objects.get(ds.object);
      if (!obj) continue;
      const artifact = { type: 'dataset', name: ds.name };
      // An invalid object's fields are not judged (checkField), and most fields resolve: no context for those.
      if (obj.invalid) continue;
      for (const [i, dim] of ds.def.dimensions.entries()) {
        if (dim.field.includes('.') || resolveField(obj, dim.field)) continue;
        const f = checkField(graph, obj, dim.field, {
          artifact,
          subject: () => `Dataset ${q(ds.name)} dimension ${q(dim.name)}`,
          slot: 'field',
          path: pointer('dimensions', i, 'field'),
        });
        if (f) emit(f);
      }
      for (const [i, m] of ds.def.measures.entries()) {
        if (m.field === undefined || m.field.includes('.') || resolveField(obj, m.field)) continue;
        const f = checkField(graph, obj, m.field, {
          artifact,
          subject: () => `Dataset ${q(ds.name)} measure ${q(m.name)}`,
          slot: 'field',
          path: pointer('measures', i, 'field'),
        });
        if (f) emit(f);
      }
    }
  },
});
