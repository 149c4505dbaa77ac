import { mayBeHidden, pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';

/** A widget `dimensions[]` entry that names no dimension of its dataset (#1721). */
export default defineRule({
  meta: { name: 'widget-dimension-exists', codes: ['unknown_dimension'], docs: "Every widget dimensions[] entry is a dimension of the widget's dataset." },
  run(graph, emit) {
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      for (const w of d.widgets) {
        // Hidden by ObjectStack when its requiresObject is not registered: not judged.
        if (mayBeHidden(graph.objects, w.def.requiresObject)) continue;
        const ds = w.def.dataset !== undefined ? graph.datasets.get(w.def.dataset) : undefined;
        if (!ds || ds.invalid) continue;
        const dimensions = w.def.dimensions;
        if (dimensions === undefined) continue;
        // The dimension names are listed only in a finding: a clean widget builds nothing.
        let dims: string[] | undefined;
        for (let i = 0; i < dimensions.length; i++) {
          const dim = dimensions[i]!;
          if (ds.dimensions.has(dim)) continue;
          dims ??= [...ds.dimensions.keys()];
          const path = pointer('widgets', w.index, 'dimensions', i);
          const s = suggest(dim, dims, path);
          emit({
            code: 'unknown_dimension',
            artifact: { type: 'dashboard', name: d.name },
            ref: { type: 'dashboard', name: d.name, member: w.id },
            message: `Widget ${q(w.id)} of dashboard ${q(d.name)} groups by dimension ${q(dim)}, which dataset ${q(ds.name)} does not declare (it has: ${listing(dims)}).${didYouMeanText(s.suggestions)}`,
            fix: s.suggestions?.length
              ? `Use dimension ${q(s.suggestions[0])}, or add dimension ${q(dim)} to dataset ${q(ds.name)}.`
              : `Add dimension ${q(dim)} to dataset ${q(ds.name)}, or use one of its dimensions.`,
            path,
            ...s,
          });
        }
      }
    }
  },
});
