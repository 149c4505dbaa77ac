import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, objectChoices, q, suggest } from '../describe-names.ts';

const REFERENCING = new Set(['lookup', 'master_detail', 'tree', 'user']);

/** A lookup/master_detail (or tree/user) field whose `reference` names no object (#3583: `user` vs `sys_user`). */
export default defineRule({
  meta: { name: 'lookup-reference-exists', codes: ['dangling_reference'], docs: 'Every relation field references an existing object.' },
  run(graph, emit) {
    for (const obj of graph.objects.values()) {
      if (obj.invalid || obj.platform) continue;
      for (const f of obj.fields.values()) {
        if (f.invalid || !REFERENCING.has(f.def.type) || f.def.reference === undefined) continue;
        if (graph.objects.has(f.def.reference)) continue;
        const path = pointer('fields', f.name, 'reference');
        const { clause, candidates } = objectChoices(graph, f.def.reference);
        const s = suggest(f.def.reference, candidates, path);
        emit({
          code: 'dangling_reference',
          artifact: { type: 'object', name: obj.name },
          ref: { type: 'object', name: f.def.reference, member: f.name },
          message: `Field ${q(f.name)} of object ${q(obj.name)} is a ${f.def.type} to object ${q(f.def.reference)}, which does not exist (${clause}).${didYouMeanText(s.suggestions)}`,
          fix: s.suggestions?.length
            ? `Set the reference to ${q(s.suggestions[0])}, or create object ${q(f.def.reference)}.`
            : `Create object ${q(f.def.reference)}, or reference an existing object (users are "sys_user").`,
          path,
          ...s,
        });
      }
    }
  },
});
