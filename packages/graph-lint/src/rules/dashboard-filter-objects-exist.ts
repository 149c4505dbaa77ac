import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, objectChoices, q, suggest } from '../describe-names.ts';

/** A dashboard global filter scoped to (`object`) or filling its options from (`optionsFrom.object`) an object that does not exist (#3583: `user` for `sys_user`). */
export default defineRule({
  meta: {
    name: 'dashboard-filter-objects-exist',
    codes: ['dangling_object'],
    docs: 'Dashboard global filters name existing objects (object, optionsFrom.object).',
  },
  run(graph, emit) {
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      for (const [i, g] of (d.def.globalFilters ?? []).entries()) {
        const from = (g as { optionsFrom?: unknown }).optionsFrom;
        const fromObject = typeof from === 'object' && from !== null ? (from as { object?: unknown }).object : undefined;
        const refs: Array<[unknown, string]> = [
          [g.object, pointer('globalFilters', i, 'object')],
          [fromObject, pointer('globalFilters', i, 'optionsFrom', 'object')],
        ];
        for (const [name, path] of refs) {
          if (typeof name !== 'string' || graph.objects.has(name)) continue;
          const { clause, candidates } = objectChoices(graph, name);
          const s = suggest(name, candidates, path);
          emit({
            code: 'dangling_object',
            artifact: { type: 'dashboard', name: d.name },
            ref: { type: 'object', name },
            message: `Global filter ${q(g.name ?? g.field)} of dashboard ${q(d.name)} names object ${q(name)}, which does not exist (${clause}); the filter has no options and filters nothing.${didYouMeanText(s.suggestions)}`,
            fix: s.suggestions?.length ? `Use ${q(s.suggestions[0])}.` : `Name an existing object (users are "sys_user").`,
            path,
            ...s,
          });
        }
      }
    }
  },
});
