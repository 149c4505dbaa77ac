import { allFieldNames, mayBeHidden, pointer, resolveField } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';

/**
 * Dashboard dateRange / globalFilters fields are broadcast to every widget unless the widget's
 * filterBindings opts out (`false`) or rebinds to another field (a string). A field must resolve on
 * the dataset object of each widget that receives it, or the widget fails with "no such column" (#3365).
 */
export default defineRule({
  meta: {
    name: 'dashboard-filter-fields-exist',
    codes: ['dashboard_filter_field_unknown'],
    docs: "Broadcast dashboard filter fields exist on each receiving widget's dataset object.",
  },
  *check(graph) {
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      const filters: Array<{
        binding: string;
        field: string | undefined;
        label: string;
        path: string;
        object?: string | undefined;
        targets?: readonly string[] | undefined;
      }> = [];
      if (d.def.dateRange) filters.push({ binding: 'dateRange', field: d.def.dateRange.field, label: 'date range', path: pointer('dateRange', 'field') });
      for (const [i, g] of (d.def.globalFilters ?? []).entries()) {
        filters.push({
          binding: g.name ?? g.field,
          field: g.field,
          label: `global filter ${q(g.name ?? g.field)}`,
          path: pointer('globalFilters', i, 'field'),
          object: g.object,
          targets: g.scope === 'widget' ? g.targetWidgets : undefined,
        });
      }
      if (filters.length === 0) continue;
      for (const w of d.widgets) {
        // Hidden by ObjectStack when its requiresObject is not registered: not judged.
        if (mayBeHidden(graph.objects, w.def.requiresObject)) continue;
        const ds = w.def.dataset !== undefined ? graph.datasets.get(w.def.dataset) : undefined;
        if (!ds || ds.invalid || !ds.object) continue;
        const obj = graph.objects.get(ds.object);
        if (!obj || obj.invalid) continue;
        for (const f of filters) {
          if (f.targets && !f.targets.includes(w.id)) continue;
          if (f.object && f.object !== obj.name) continue;
          const bound = w.def.filterBindings?.[f.binding];
          if (bound === false) continue;
          const field = typeof bound === 'string' ? bound : f.field;
          if (field === undefined || resolveField(obj, field)) continue;
          const rebound = typeof bound === 'string';
          const path = rebound ? pointer('widgets', w.index, 'filterBindings', f.binding) : f.path;
          const candidates = allFieldNames(obj);
          const s = suggest(field, candidates, rebound ? path : undefined);
          yield {
            code: 'dashboard_filter_field_unknown',
            artifact: { type: 'dashboard', name: d.name },
            ref: { type: 'dashboard', name: d.name, member: w.id },
            message: `The ${f.label} of dashboard ${q(d.name)} filters widget ${q(w.id)} on field ${q(field)}${rebound ? ' (rebound by its filterBindings)' : ''}, but the widget's dataset ${q(ds.name)} reads object ${q(obj.name)}, which has no such field (it has: ${listing(candidates)}); the widget fails with "no such column".${didYouMeanText(s.suggestions)}`,
            fix: `Set filterBindings.${f.binding} on widget ${q(w.id)} to a field of ${q(obj.name)} that means the same thing${s.suggestions?.length ? ` (e.g. ${q(s.suggestions[0])})` : ''}, or to false to opt the widget out.`,
            path,
            ...s,
          };
        }
      }
    }
  },
});
