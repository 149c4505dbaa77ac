import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';

/** A list view's `chart` block binds a dataset, its dimensions and values, like a widget (#3583 R4). */
export default defineRule({
  meta: {
    name: 'list-chart-bindings',
    codes: ['dangling_dataset', 'unknown_measure', 'unknown_dimension'],
    docs: "A list view's chart block names an existing dataset and its measures/dimensions.",
  },
  run(graph, emit) {
    const datasets = [...graph.datasets.keys()];
    for (const v of graph.views.values()) {
      const chart = v.list?.chart as Record<string, unknown> | undefined;
      if (v.invalid || !v.list) continue;
      const artifact = { type: 'view', name: v.name };
      if (!chart) {
        if (v.list.type === 'chart')
          emit({
            code: 'dangling_dataset',
            artifact,
            message: `View ${q(v.name)} is a chart with no chart block, so it plots no dataset (datasets: ${listing(datasets)}).`,
            fix: 'Add chart: {"chartType": "bar", "dataset": "<dataset>", "dimensions": [...], "values": [...]}.',
            path: '',
          });
        continue;
      }
      const name = chart.dataset;
      if (typeof name !== 'string' || name === '') {
        emit({
          code: 'dangling_dataset',
          artifact,
          message: `The chart block of view ${q(v.name)} names no dataset, so the chart is empty (datasets: ${listing(datasets)}).`,
          fix: 'Set chart.dataset to the dataset the chart plots.',
          path: pointer('chart'),
        });
        continue;
      }
      const ds = graph.datasets.get(name);
      if (!ds) {
        const path = pointer('chart', 'dataset');
        const s = suggest(name, datasets, path);
        emit({
          code: 'dangling_dataset',
          artifact,
          ref: { type: 'dataset', name },
          message: `The chart of view ${q(v.name)} is bound to dataset ${q(name)}, which does not exist (datasets: ${listing(datasets)}).${didYouMeanText(s.suggestions)}`,
          fix: `Create dataset ${q(name)} or bind the chart to an existing one.`,
          path,
          ...s,
        });
        continue;
      }
      if (ds.invalid) continue;
      for (const [key, code, map, kind] of [
        ['values', 'unknown_measure', ds.measures, 'measure'],
        ['dimensions', 'unknown_dimension', ds.dimensions, 'dimension'],
      ] as const) {
        const list = chart[key];
        if (!Array.isArray(list)) continue;
        for (const [i, m] of list.entries()) {
          if (typeof m !== 'string' || map.has(m)) continue;
          const path = pointer('chart', key, i);
          const s = suggest(m, map.keys(), path);
          emit({
            code,
            artifact,
            ref: { type: 'dataset', name: ds.name, member: m },
            message: `The chart of view ${q(v.name)} asks for ${kind} ${q(m)}, which dataset ${q(ds.name)} does not declare (it has: ${listing(map.keys())}).${didYouMeanText(s.suggestions)}`,
            fix: `Use one of the dataset's ${kind}s, or add ${kind} ${q(m)} to dataset ${q(ds.name)}.`,
            path,
            ...s,
          });
        }
      }
    }
  },
});
