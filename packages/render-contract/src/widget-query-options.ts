import type { WidgetDef } from '@bvl/metadata';
import type { DatasetSelection, DateGranularity } from './dataset-plan.ts';

const GRANULARITIES: ReadonlySet<string> = new Set(['day', 'week', 'month', 'quarter', 'year']);

/**
 * The part of a widget's `options` that changes its query, as objectui's DatasetWidget lowers it
 * into the dataset selection (framework#3588): `dateGranularity` buckets its date dimensions, and
 * `sortBy`/`sortOrder` order it — only when `sortBy` names a dimension or value the widget selects
 * (a stale one degrades to unordered, it is never sent). `limit` is the caller's to cap.
 */
export function widgetQueryOptions(def: WidgetDef): Pick<DatasetSelection, 'dateGranularity' | 'order'> {
  const options = def.options ?? {};
  const out: Pick<DatasetSelection, 'dateGranularity' | 'order'> = {};
  const g = options.dateGranularity;
  if (typeof g === 'string' && GRANULARITIES.has(g)) out.dateGranularity = g as DateGranularity;
  const sortBy = options.sortBy;
  if (typeof sortBy === 'string' && sortBy !== '' && ((def.dimensions ?? []).includes(sortBy) || (def.values ?? []).includes(sortBy)))
    out.order = { [sortBy]: options.sortOrder === 'desc' ? 'desc' : 'asc' };
  return out;
}
