import { DATE_RANGE_PRESETS, isDateRangePreset, pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { listing, q, suggest } from '../describe-names.ts';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const MACRO = /^\{[a-z0-9_]+\}$/;
/** What `dateRange.defaultRange` accepts: every preset, plus `custom` (open the picker, no window). */
const DEFAULT_RANGES: readonly string[] = [...DATE_RANGE_PRESETS, 'custom'];

/**
 * A dashboard date default the format cannot resolve. ObjectStack's DashboardSchema takes
 * `dateRange.defaultRange` from the presets plus `custom`, and a `type: "date"` global filter's
 * `defaultValue` only as a preset, an ISO date or a date macro (#4614): anything else lowers to
 * `field = '<text>'`, every tile reads 0 and the bar shows "All time".
 */
export default defineRule({
  meta: {
    name: 'dashboard-date-defaults',
    codes: ['invalid_artifact'],
    docs: "A dashboard's dateRange.defaultRange and date global filter defaults are values the format resolves.",
  },
  run(graph, emit) {
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      const artifact = { type: 'dashboard', name: d.name };
      const range = (d.def.dateRange as Record<string, unknown> | undefined)?.defaultRange;
      if (range !== undefined && !(typeof range === 'string' && DEFAULT_RANGES.includes(range))) {
        const path = pointer('dateRange', 'defaultRange');
        const s = typeof range === 'string' ? suggest(range, DEFAULT_RANGES, path) : {};
        emit({
          code: 'invalid_artifact',
          artifact,
          message: `Dashboard ${q(d.name)} opens its date range on ${q(range)}, which is not a date-range preset (${listing(DEFAULT_RANGES)}); ObjectStack refuses the dashboard.`,
          fix: `Set dateRange.defaultRange to one of: ${DEFAULT_RANGES.join(', ')}.`,
          path,
          ...s,
        });
      }
      for (const [i, g] of (d.def.globalFilters ?? []).entries()) {
        const f = g as Record<string, unknown>;
        if (f.type !== 'date' || f.defaultValue === undefined) continue;
        const v = f.defaultValue;
        if (typeof v === 'string' && (isDateRangePreset(v) || MACRO.test(v) || ISO_DATE.test(v))) continue;
        const path = pointer('globalFilters', i, 'defaultValue');
        const s = typeof v === 'string' ? suggest(v, DATE_RANGE_PRESETS, path) : {};
        emit({
          code: 'invalid_artifact',
          artifact,
          message: `Date filter ${q(g.name ?? g.field)} of dashboard ${q(d.name)} defaults to ${q(v)}, which a date filter cannot resolve: it would compare ${q(g.field)} with that text, every widget would read 0 and the filter bar would say "All time". ObjectStack refuses it (#4614).`,
          fix: `Use a preset (${DATE_RANGE_PRESETS.join(', ')}), an ISO date such as "2026-01-15", or a date macro such as {30_days_ago}.`,
          path,
          ...s,
        });
      }
    }
  },
});
