import { mayBeHidden, pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';

/** Keys of the retired inline analytics widget shape (#1878/#1894, ADR-0021). */
const LEGACY_KEYS = ['object', 'categoryField', 'valueField', 'aggregate', 'xAxisField', 'yAxisField'] as const;

/** ADR-0038 incident #1: a widget bound to a dataset that does not exist, or to none. */
export default defineRule({
  meta: { name: 'widget-dataset-exists', codes: ['dangling_dataset'], docs: 'Every dashboard widget names a dataset that exists.' },
  run(graph, emit) {
    const names = [...graph.datasets.keys()];
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      for (const w of d.widgets) {
        // Hidden by ObjectStack when its requiresObject is not registered: not judged.
        if (mayBeHidden(graph.objects, w.def.requiresObject)) continue;
        const artifact = { type: 'dashboard', name: d.name };
        const ref = { type: 'dashboard', name: d.name, member: w.id };
        const legacy = LEGACY_KEYS.filter((k) => k in w.def);
        if ((w.def.dataset === undefined || w.def.dataset === '') && legacy.length > 0) {
          emit({
            code: 'dangling_dataset',
            artifact,
            ref,
            message: `Widget ${q(w.id)} of dashboard ${q(d.name)} uses the retired inline analytics shape (${legacy.join(', ')}) instead of a dataset, so it renders nothing (datasets here: ${listing(names)}).`,
            fix: `Declare a dataset on the widget's object with the measure and dimension it needs, then set "dataset", "values" and "dimensions" on widget ${q(w.id)} and remove ${legacy.join(', ')}.`,
            path: pointer('widgets', w.index),
          });
          continue;
        }
        if (w.def.dataset === undefined || w.def.dataset === '') {
          emit({
            code: 'dangling_dataset',
            artifact,
            ref,
            message: `Widget ${q(w.id)} of dashboard ${q(d.name)} has no dataset, so it renders empty (datasets here: ${listing(names)}).`,
            fix: `Set "dataset" on widget ${q(w.id)} to the dataset whose measures it shows.`,
            path: pointer('widgets', w.index),
            // The only dataset is a guess unless it declares every measure the widget asks for.
            ...(names.length === 1
              ? {
                  suggestions: names,
                  patch: [{ op: 'add' as const, path: pointer('widgets', w.index, 'dataset'), value: names[0] }],
                  fixSafety: (w.def.values ?? []).every((m) => graph.datasets.get(names[0]!)?.measures.has(m)) ? ('safe' as const) : ('unsafe' as const),
                }
              : {}),
          });
          continue;
        }
        if (graph.datasets.has(w.def.dataset)) continue;
        const path = pointer('widgets', w.index, 'dataset');
        const s = suggest(w.def.dataset, names, path);
        emit({
          code: 'dangling_dataset',
          artifact,
          ref,
          message: `Widget ${q(w.id)} of dashboard ${q(d.name)} is bound to dataset ${q(w.def.dataset)}, which does not exist (datasets: ${listing(names)}).${didYouMeanText(s.suggestions)}`,
          fix: s.suggestions?.length
            ? `Bind widget ${q(w.id)} to dataset ${q(s.suggestions[0])}, or create dataset ${q(w.def.dataset)}.`
            : `Create dataset ${q(w.def.dataset)} with the measures widget ${q(w.id)} uses, or bind the widget to an existing dataset.`,
          path,
          ...s,
        });
      }
    }
  },
});
