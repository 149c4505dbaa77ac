import { pointer, VIEW_FILTER_OPERATOR_NAMES } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';

const KNOWN: ReadonlySet<string> = new Set(VIEW_FILTER_OPERATOR_NAMES);

/**
 * A view filter row whose operator is not one the format defines: ObjectStack's schema rejects it,
 * and a renderer that tolerates it drops the condition. Reported as `invalid_artifact` on that row
 * only, so the rest of the view is still checked.
 */
export default defineRule({
  meta: {
    name: 'view-filter-operators-known',
    codes: ['invalid_artifact'],
    docs: 'View filter operators are among the format’s VIEW_FILTER_OPERATORS (or their aliases).',
  },
  run(graph, emit) {
    for (const v of graph.views.values()) {
      const filter = v.list?.filter;
      if (v.invalid || !Array.isArray(filter)) continue;
      for (const [i, row] of filter.entries()) {
        const op = row.operator;
        if (op === undefined || KNOWN.has(op)) continue;
        const path = pointer('filter', i, 'operator');
        const s = suggest(op, VIEW_FILTER_OPERATOR_NAMES, path);
        emit({
          code: 'invalid_artifact',
          artifact: { type: 'view', name: v.name },
          message: `Filter ${i} of view ${q(v.name)} uses operator ${q(op)}, which the view filter format does not define (operators: ${listing(VIEW_FILTER_OPERATOR_NAMES)}); the condition is rejected or silently dropped.${didYouMeanText(s.suggestions)}`,
          fix: s.suggestions?.length ? `Use operator ${q(s.suggestions[0])}.` : `Use one of the view filter operators.`,
          path,
          ...s,
        });
      }
    }
  },
});
