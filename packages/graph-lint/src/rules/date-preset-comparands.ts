import { DATE_RANGE_PRESET_WINDOWS, type DateRangePreset, isDateRangePreset, pointer } from '@bvl/metadata';
import { defineRule, type Finding } from '../define-rule.ts';
import { q } from '../describe-names.ts';
import { filterLeaves } from '../filter-leaves.ts';

const ORDERING_OPS = new Set(['$gt', '$gte', '$lt', '$lte']);
/** View filter operators that order (and so take a date bound). */
const ORDERING_ROWS = new Set([
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'gt',
  'gte',
  'lt',
  'lte',
  'before',
  'after',
  'between',
]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The macro spelling of a preset's window, for messages. */
function window(preset: DateRangePreset): string {
  const [start, end] = DATE_RANGE_PRESET_WINDOWS[preset];
  return end === null ? `{"$gte": "${start}"}` : `{"$between": ["${start}", "${end}"]}`;
}

function finding(artifact: { type: string; name: string }, subject: () => string, preset: DateRangePreset, op: string, path: string): Finding {
  return {
    code: 'invalid_artifact',
    artifact,
    message: `${subject()} compares with ${q(preset)} under ${op}: that is a dashboard date-range preset name, not a filter value. Only a dashboard's date filter lowers it to dates; as a comparand it is the literal text, which a date field refuses (INVALID_FILTER) and any other field compares as text, so the filter matches nothing. ObjectStack refuses it at save (#8793).`,
    fix: `Write the window as date macros, e.g. ${window(preset)}, or compare with an ISO date such as "2026-01-15".`,
    path,
  };
}

/** Preset names in the ordering positions of a Mongo-style filter ($gt/$gte/$lt/$lte and $between endpoints). */
function* presetsIn(
  filter: unknown,
  base: ReadonlyArray<string | number>,
  artifact: { type: string; name: string },
  subject: () => string,
): Generator<Finding> {
  for (const leaf of filterLeaves(filter, base)) {
    if (!isRecord(leaf.value)) continue;
    for (const [op, arg] of Object.entries(leaf.value)) {
      if (ORDERING_OPS.has(op) && isDateRangePreset(arg)) yield finding(artifact, subject, arg, op, pointer(...leaf.at, op));
      if (op === '$between' && Array.isArray(arg))
        for (const [i, end] of arg.entries()) if (isDateRangePreset(end)) yield finding(artifact, subject, end, '$between', pointer(...leaf.at, op, i));
    }
  }
}

/**
 * A bare date-range preset (`last_30_days`) where a filter wants a date or a date macro: in the
 * ordering positions of dataset, measure, widget and view filters, as ObjectStack judges it
 * (#8793: equality and membership are not judged — a select can store such a value).
 */
export default defineRule({
  meta: {
    name: 'date-preset-comparands',
    codes: ['invalid_artifact'],
    docs: 'No filter orders by a bare date-range preset name; bounds are dates or date macros.',
  },
  run(graph, emit) {
    for (const v of graph.views.values()) {
      if (v.invalid || !v.list) continue;
      const artifact = { type: 'view', name: v.name };
      const filter = v.list.filter;
      if (Array.isArray(filter)) {
        for (const [i, row] of filter.entries()) {
          if (!ORDERING_ROWS.has(String(row.operator))) continue;
          const values = Array.isArray(row.value)
            ? row.value.map((x, j) => [x, pointer('filter', i, 'value', j)] as const)
            : [[row.value, pointer('filter', i, 'value')] as const];
          for (const [value, path] of values)
            if (isDateRangePreset(value)) emit(finding(artifact, () => `View ${q(v.name)}`, value, String(row.operator), path));
        }
      } else if (isRecord(filter)) for (const found of presetsIn(filter, ['filter'], artifact, () => `View ${q(v.name)}`)) emit(found);
    }
    for (const ds of graph.datasets.values()) {
      if (ds.invalid) continue;
      const artifact = { type: 'dataset', name: ds.name };
      // A filter that is no record has no leaves: skip it before building its path and subject.
      if (isRecord(ds.def.filter)) for (const found of presetsIn(ds.def.filter, ['filter'], artifact, () => `The filter of dataset ${q(ds.name)}`)) emit(found);
      for (const [i, m] of ds.def.measures.entries())
        if (isRecord(m.filter))
          for (const found of presetsIn(m.filter, ['measures', i, 'filter'], artifact, () => `Measure ${q(m.name)} of dataset ${q(ds.name)}`)) emit(found);
    }
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      for (const w of d.widgets)
        if (isRecord(w.def.filter))
          for (const f of presetsIn(
            w.def.filter,
            ['widgets', w.index, 'filter'],
            { type: 'dashboard', name: d.name },
            () => `Widget ${q(w.id)} of dashboard ${q(d.name)}`,
          ))
            emit({ ...f, ref: { type: 'dashboard', name: d.name, member: w.id } });
    }
  },
});
