import { mayBeHidden, pointer } from '@bvl/metadata';
import { defineRule, type Finding } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';

/**
 * A chart axis or series that names something the widget does not select: xAxis must be one of
 * the widget's dimensions, yAxis/series one of its values. The series renders empty otherwise.
 */
export default defineRule({
  meta: {
    name: 'chart-fields-selected',
    codes: ['chart_field_unknown'],
    docs: "chartConfig axes and series name the widget's selected dimensions and measures.",
  },
  run(graph, emit) {
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      for (const w of d.widgets) {
        // Hidden by ObjectStack when its requiresObject is not registered: not judged.
        if (mayBeHidden(graph.objects, w.def.requiresObject)) continue;
        const cc = w.def.chartConfig;
        if (!cc) continue;
        const ds = w.def.dataset !== undefined ? graph.datasets.get(w.def.dataset) : undefined;
        if (!ds || ds.invalid) continue;
        const dims = w.def.dimensions ?? [];
        const vals = w.def.values ?? [];
        const base = { artifact: { type: 'dashboard', name: d.name }, ref: { type: 'dashboard', name: d.name, member: w.id } };
        const finding = (name: string, path: string, axis: string, selected: string[], kind: 'dimension' | 'measure'): Finding => {
          const inDataset = (n: string) => (kind === 'dimension' ? ds.dimensions.has(n) : ds.measures.has(n));
          const declared = inDataset(name);
          // Only a selection the dataset declares can fix the axis (a misspelt selection is
          // unknown_dimension/unknown_measure's to fix); when the axis names a declared field, the
          // fix is to select it, not to move the axis. The one valid choice is clearly right.
          const valid = declared ? [] : selected.filter(inDataset);
          const similar = suggest(name, valid, path);
          const s =
            valid.length === 1 && !similar.patch
              ? { suggestions: valid, patch: [{ op: 'replace' as const, path, value: valid[0]! }], fixSafety: 'safe' as const }
              : similar;
          const why = declared
            ? `${kind} ${q(name)} is declared by dataset ${q(ds.name)} but not selected in the widget's ${kind === 'dimension' ? 'dimensions' : 'values'}`
            : `it is not a selected ${kind} (selected: ${listing(selected)})`;
          return {
            code: 'chart_field_unknown',
            ...base,
            message: `Widget ${q(w.id)} of dashboard ${q(d.name)} plots ${q(name)} on its ${axis}, but ${why}; the series renders empty.${didYouMeanText(s.suggestions)}`,
            fix: declared
              ? `Add ${q(name)} to the widget's ${kind === 'dimension' ? 'dimensions' : 'values'}.`
              : `Point the ${axis} at one of: ${listing(selected)}.`,
            path,
            ...s,
          };
        };
        const x = cc.xAxis?.field;
        if (x !== undefined && !dims.includes(x)) emit(finding(x, pointer('widgets', w.index, 'chartConfig', 'xAxis', 'field'), 'x axis', dims, 'dimension'));
        const ys = cc.yAxis === undefined ? [] : Array.isArray(cc.yAxis) ? cc.yAxis : [cc.yAxis];
        for (const [i, y] of ys.entries()) {
          if (y.field === undefined || vals.includes(y.field)) continue;
          const path = Array.isArray(cc.yAxis)
            ? pointer('widgets', w.index, 'chartConfig', 'yAxis', i, 'field')
            : pointer('widgets', w.index, 'chartConfig', 'yAxis', 'field');
          emit(finding(y.field, path, 'y axis', vals, 'measure'));
        }
        for (const [i, s] of (cc.series ?? []).entries()) {
          const name = s.field ?? s.name;
          if (name === undefined || vals.includes(name)) continue;
          emit(finding(name, pointer('widgets', w.index, 'chartConfig', 'series', i, s.field !== undefined ? 'field' : 'name'), 'series', vals, 'measure'));
        }
      }
    }
  },
});
