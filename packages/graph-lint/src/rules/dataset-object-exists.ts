import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, objectChoices, q, suggest } from '../describe-names.ts';

/** A dataset whose base object does not exist (the compiler does not check it; #5520). */
export default defineRule({
  meta: { name: 'dataset-object-exists', codes: ['dangling_object'], docs: "Every dataset's base object exists." },
  run(graph, emit) {
    for (const ds of graph.datasets.values()) {
      if (ds.invalid) continue;
      const artifact = { type: 'dataset', name: ds.name };
      if (ds.object === undefined) {
        emit({
          code: 'dangling_object',
          artifact,
          message: `Dataset ${q(ds.name)} names no base object, so none of its measures can be queried.`,
          fix: `Set "object" on dataset ${q(ds.name)} to the object it aggregates.`,
          path: '',
        });
        continue;
      }
      if (graph.objects.has(ds.object)) continue;
      const key = ds.def.object !== undefined ? 'object' : ds.def.source !== undefined ? 'source' : 'objectName';
      const path = pointer(key);
      const { clause, candidates } = objectChoices(graph, ds.object);
      const s = suggest(ds.object, candidates, path);
      emit({
        code: 'dangling_object',
        artifact,
        ref: { type: 'object', name: ds.object },
        message: `Dataset ${q(ds.name)} aggregates object ${q(ds.object)}, which does not exist (${clause}).${didYouMeanText(s.suggestions)}`,
        fix: s.suggestions?.length
          ? `Set ${key} to ${q(s.suggestions[0])}, or create object ${q(ds.object)}.`
          : `Create object ${q(ds.object)}, or point the dataset at an existing object.`,
        path,
        ...s,
      });
    }
  },
});
