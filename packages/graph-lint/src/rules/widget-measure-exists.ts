import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';

/** ADR-0038 incident #2: a widget `values[]` entry that names no measure of its dataset. */
export default defineRule({
  meta: { name: 'widget-measure-exists', codes: ['unknown_measure'], docs: "Every widget values[] entry is a measure of the widget's dataset." },
  *check(graph) {
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      for (const w of d.widgets) {
        const ds = w.def.dataset !== undefined ? graph.datasets.get(w.def.dataset) : undefined;
        if (!ds || ds.invalid) continue;
        const measures = [...ds.measures.keys()];
        for (const [i, value] of (w.def.values ?? []).entries()) {
          if (ds.measures.has(value)) continue;
          const path = pointer('widgets', w.index, 'values', i);
          const s = suggest(value, measures, path);
          yield {
            code: 'unknown_measure',
            artifact: { type: 'dashboard', name: d.name },
            ref: { type: 'dashboard', name: d.name, member: w.id },
            message: `Widget ${q(w.id)} of dashboard ${q(d.name)} asks for measure ${q(value)}, which dataset ${q(ds.name)} does not declare (it has: ${listing(measures)}).${didYouMeanText(s.suggestions)}`,
            fix: s.suggestions?.length ? `Use measure ${q(s.suggestions[0])}, or add measure ${q(value)} to dataset ${q(ds.name)}.` : `Add measure ${q(value)} to dataset ${q(ds.name)}, or use one of its measures.`,
            path,
            ...s,
          };
        }
      }
    }
  },
});
