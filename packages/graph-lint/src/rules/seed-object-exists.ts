import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, objectChoices, q, suggest } from '../describe-names.ts';

/** A seed for an object that does not exist: its rows can never land. */
export default defineRule({
  meta: { name: 'seed-object-exists', codes: ['dangling_object'], docs: "Every seed's object exists." },
  run(graph, emit) {
    for (const seed of graph.seeds.values()) {
      if (seed.invalid || graph.objects.has(seed.object)) continue;
      const path = pointer('object');
      const { clause, candidates } = objectChoices(graph, seed.object);
      const s = suggest(seed.object, candidates, path);
      emit({
        code: 'dangling_object',
        artifact: { type: 'seed', name: seed.name },
        ref: { type: 'object', name: seed.object },
        message: `Seed ${q(seed.name)} loads ${seed.recordCount} record(s) into object ${q(seed.object)}, which does not exist (${clause}).${didYouMeanText(s.suggestions)}`,
        fix: s.suggestions?.length
          ? `Set the seed's object to ${q(s.suggestions[0])}, or create object ${q(seed.object)}.`
          : `Create object ${q(seed.object)}, or remove the seed.`,
        path,
        ...s,
      });
    }
  },
});
