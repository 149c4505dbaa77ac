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
  run(graph, emit) {
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
      type Miss = { w: (typeof d.widgets)[number]; ds: string; obj: NonNullable<ReturnType<typeof graph.objects.get>>; field: string; rebound: boolean };
      const receivers = new Map<(typeof filters)[number], number>();
      const misses = new Map<(typeof filters)[number], Miss[]>();
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
          if (field === undefined) continue;
          receivers.set(f, (receivers.get(f) ?? 0) + 1);
          if (resolveField(obj, field)) continue;
          misses.set(f, [...(misses.get(f) ?? []), { w, ds: ds.name, obj, field, rebound: typeof bound === 'string' }]);
        }
      }
      for (const [f, list] of misses) {
        // A field no receiving widget has is one mistake in the filter, not one per widget.
        if (list.length > 1 && list.length === receivers.get(f) && list.every((m) => !m.rebound)) {
          const objects = [...new Set(list.map((m) => m.obj.name))];
          const candidates = objects.length === 1 ? allFieldNames(list[0]!.obj) : [];
          const s = suggest(f.field!, candidates, objects.length === 1 ? f.path : undefined);
          emit({
            code: 'dashboard_filter_field_unknown',
            artifact: { type: 'dashboard', name: d.name },
            ref: { type: 'dashboard', name: d.name, member: f.binding },
            message: `The ${f.label} of dashboard ${q(d.name)} filters on field ${q(f.field)}, which none of the ${list.length} widgets it reaches has (${listing(list.map((m) => m.w.id))} read ${objects.map((o) => q(o)).join(', ')}${candidates.length ? `; it has: ${listing(candidates)}` : ''}); every one of them fails with "no such column".${didYouMeanText(s.suggestions)}`,
            fix: `Point the ${f.label} at a field the widgets' objects have${s.suggestions?.length ? ` (e.g. ${q(s.suggestions[0])})` : ''}, or remove it.`,
            path: f.path,
            ...s,
          });
          continue;
        }
        for (const { w, ds, obj, field, rebound } of list) {
          const path = rebound ? pointer('widgets', w.index, 'filterBindings', f.binding) : f.path;
          const candidates = allFieldNames(obj);
          const s = suggest(field, candidates, rebound ? path : undefined);
          emit({
            code: 'dashboard_filter_field_unknown',
            artifact: { type: 'dashboard', name: d.name },
            ref: { type: 'dashboard', name: d.name, member: w.id },
            message: `The ${f.label} of dashboard ${q(d.name)} filters widget ${q(w.id)} on field ${q(field)}${rebound ? ' (rebound by its filterBindings)' : ''}, but the widget's dataset ${q(ds)} reads object ${q(obj.name)}, which has no such field (it has: ${listing(candidates)}); the widget fails with "no such column".${didYouMeanText(s.suggestions)}`,
            fix: `Set filterBindings.${f.binding} on widget ${q(w.id)} to a field of ${q(obj.name)} that means the same thing${s.suggestions?.length ? ` (e.g. ${q(s.suggestions[0])})` : ''}, or to false to opt the widget out.`,
            path,
            ...s,
          });
        }
      }
    }
  },
});
