import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { listing, q, suggest } from '../describe-names.ts';

/** The chart types a list view's chart block draws (ObjectStack ListChartConfigSchema: ChartTypeSchema.extract). */
export const LIST_CHART_TYPES = ['bar', 'line', 'pie', 'area', 'scatter'] as const;

/**
 * A list view's chart block as ObjectStack stores it: `chartType` one of the five list chart types
 * (default bar) and `values` at least one measure (`z.array(z.string()).min(1)`). Either failing,
 * the spec refuses the view; objectui would plot nothing. Dataset and names are list-chart-bindings'.
 */
export default defineRule({
  meta: {
    name: 'list-chart-config-valid',
    codes: ['invalid_artifact'],
    docs: "A list view's chart block has a list chart type (bar, line, pie, area, scatter) and at least one value.",
  },
  run(graph, emit) {
    for (const v of graph.views.values()) {
      if (v.invalid || !v.list) continue;
      const chart = v.list.chart as Record<string, unknown> | undefined;
      if (!chart || typeof chart !== 'object') continue;
      const artifact = { type: 'view', name: v.name };
      const type = chart.chartType;
      if (type !== undefined && !(LIST_CHART_TYPES as readonly unknown[]).includes(type)) {
        const path = pointer('chart', 'chartType');
        const s = typeof type === 'string' ? suggest(type, LIST_CHART_TYPES, path) : {};
        emit({
          code: 'invalid_artifact',
          artifact,
          message: `The chart of view ${q(v.name)} has chartType ${q(type)}, which a list chart does not draw (list chart types: ${listing(LIST_CHART_TYPES)}); ObjectStack refuses the view. Dashboards draw more chart types than list views do.`,
          fix: `Set chart.chartType to one of ${listing(LIST_CHART_TYPES)}, or show this chart as a dashboard widget.`,
          path,
          ...s,
          ...(s.patch ? {} : { patch: [{ op: 'replace' as const, path, value: 'bar' }], fixSafety: 'unsafe' as const }),
        });
      }
      const values = chart.values;
      if (!Array.isArray(values) || values.length === 0) {
        emit({
          code: 'invalid_artifact',
          artifact,
          message: `The chart of view ${q(v.name)} names no values, so it plots no measure; ObjectStack requires at least one (ListChartConfigSchema values: min 1).`,
          fix: 'Set chart.values to the measures of its dataset the chart plots.',
          path: pointer('chart', 'values'),
        });
      }
    }
  },
});
