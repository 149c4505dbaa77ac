import { type Graph, normalizeSort, type ObjectNode, pointer } from '@bvl/metadata';
import { defineRule, type Finding } from '../define-rule.ts';
import { q } from '../describe-names.ts';
import { filterLeaves } from '../filter-leaves.ts';
import { resolvePath } from '../resolve-path.ts';

type Use = 'sort' | 'filter' | 'aggregate';

const WHY: Readonly<Record<Use, string>> = {
  sort: 'ObjectStack refuses the sort (400 INVALID_SORT), so the view does not load',
  filter: 'ObjectStack refuses the filter, so the read fails',
  aggregate: 'there is no column to aggregate, so the query fails',
};

/** A field_type_mismatch when `field` (possibly dotted) resolves to a formula field. */
function formula(
  graph: Graph,
  object: ObjectNode,
  field: string,
  use: Use,
  artifact: { type: string; name: string },
  subject: () => string,
  path: () => string,
): Finding | undefined {
  if (object.invalid) return undefined;
  const r = resolvePath(graph, object, field);
  if (!r.ok || r.field.def.type !== 'formula') return undefined;
  return {
    code: 'field_type_mismatch',
    artifact,
    ref: { type: 'object', name: r.object.name, member: r.field.name },
    message: `${subject()} ${use === 'aggregate' ? 'aggregates' : use === 'sort' ? 'sorts by' : 'filters on'} field ${q(field)} of object ${q(r.object.name)}, a formula field: a formula is computed per record and never stored, so ${WHY[use]}.`,
    fix: `Store the value in a number/text field of ${q(r.object.name)} (written when its sources change) and ${use === 'aggregate' ? 'aggregate' : use} that, or drop ${q(field)} from the ${use === 'aggregate' ? 'measure' : use}.`,
    path: path(),
  };
}

/**
 * Formula fields are virtual: ObjectStack sorts and filters only stored columns (the REST ingress and
 * the engine refuse a formula sort, 400 INVALID_SORT, #6994/#7095) and its analytics has no column
 * to sum or average. Judged in list views (sort, filter), datasets (filters, measures) and widget filters.
 */
export default defineRule({
  meta: {
    name: 'formula-field-usage',
    codes: ['field_type_mismatch'],
    docs: 'No view sorts or filters by a formula field, and no dataset filters on or sums one.',
  },
  run(graph, emit) {
    // Only a formula field is judged, and no system field is one: a graph without any has nothing to find.
    if (!anyFormulaField(graph)) return;
    for (const v of graph.views.values()) {
      if (v.invalid || !v.list || v.object === undefined) continue;
      const obj = graph.objects.get(v.object);
      if (!obj) continue;
      const artifact = { type: 'view', name: v.name };
      const subject = () => `View ${q(v.name)}`;
      for (const s of normalizeSort(v.list.sort)) {
        const f = formula(graph, obj, s.field, 'sort', artifact, subject, () => s.path);
        if (f) emit(f);
      }
      const filter = v.list.filter;
      // The pointer of a row is built only for a finding.
      if (Array.isArray(filter))
        for (let i = 0; i < filter.length; i++) {
          const f = formula(graph, obj, filter[i]!.field, 'filter', artifact, subject, () => pointer('filter', i, 'field'));
          if (f) emit(f);
        }
      else
        for (const l of filterLeaves(filter, ['filter'])) {
          const f = formula(graph, obj, l.field, 'filter', artifact, subject, () => pointer(...l.at));
          if (f) emit(f);
        }
    }
    for (const ds of graph.datasets.values()) {
      if (ds.invalid || ds.object === undefined) continue;
      const obj = graph.objects.get(ds.object);
      if (!obj) continue;
      const artifact = { type: 'dataset', name: ds.name };
      for (const l of filterLeaves(ds.def.filter, ['filter'])) {
        const f = formula(
          graph,
          obj,
          l.field,
          'filter',
          artifact,
          () => `Dataset ${q(ds.name)}`,
          () => pointer(...l.at),
        );
        if (f) emit(f);
      }
      for (const [i, m] of ds.def.measures.entries()) {
        const subject = () => `Measure ${q(m.name)} of dataset ${q(ds.name)}`;
        for (const l of filterLeaves(m.filter, ['measures', i, 'filter'])) {
          const f = formula(graph, obj, l.field, 'filter', artifact, subject, () => pointer(...l.at));
          if (f) emit(f);
        }
        if (m.field !== undefined && (m.aggregate === 'sum' || m.aggregate === 'avg')) {
          const f = formula(graph, obj, m.field, 'aggregate', artifact, subject, () => pointer('measures', i, 'field'));
          if (f) emit(f);
        }
      }
    }
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      for (const w of d.widgets) {
        const ds = w.def.dataset === undefined ? undefined : graph.datasets.get(w.def.dataset);
        const obj = ds?.object === undefined ? undefined : graph.objects.get(ds.object);
        if (!obj || ds?.invalid) continue;
        for (const l of filterLeaves(w.def.filter, ['widgets', w.index, 'filter'])) {
          const f = formula(
            graph,
            obj,
            l.field,
            'filter',
            { type: 'dashboard', name: d.name },
            () => `Widget ${q(w.id)} of dashboard ${q(d.name)}`,
            () => pointer(...l.at),
          );
          if (f) emit({ ...f, ref: { type: 'dashboard', name: d.name, member: w.id } });
        }
      }
    }
  },
});

/** Whether any object of the graph declares a formula field (system fields never are). */
function anyFormulaField(graph: Graph): boolean {
  for (const o of graph.objects.values()) for (const f of o.fields.values()) if (f.def.type === 'formula') return true;
  return false;
}
