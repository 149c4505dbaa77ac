import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './chart-fields-selected.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'series named after selected values',
        stack: (s) =>
          Object.assign(s.dashboards[0].widgets[3], {
            chartConfig: { xAxis: { field: 'month' }, yAxis: [{ field: 'total_amount' }], series: [{ name: 'approved_amount' }] },
          }),
      },
      { name: 'yAxis as a single object', stack: (s) => (s.dashboards[0].widgets[1].chartConfig.yAxis = { field: 'expense_count' }) },
    ],
    invalid: [
      {
        name: 'x axis names a raw base column',
        stack: (s) => (s.dashboards[0].widgets[1].chartConfig.xAxis.field = 'amount'),
        // The one selected dimension is the only value that renders: a safe patch.
        errors: [
          {
            code: 'chart_field_unknown',
            artifact: 'dashboard/exp_spending',
            path: '/widgets/1/chartConfig/xAxis/field',
            patch: [{ op: 'replace', path: '/widgets/1/chartConfig/xAxis/field', value: 'status' }],
            fixSafety: 'safe',
          },
        ],
      },
      {
        name: 'a misspelt selected dimension: the right x axis is not moved onto the typo (unknown_dimension fixes the selection)',
        stack: (s) => (s.dashboards[0].widgets[1].dimensions = ['state']),
        errors: [{ code: 'chart_field_unknown', artifact: 'dashboard/exp_spending', path: '/widgets/1/chartConfig/xAxis/field', patch: null }],
      },
      {
        name: 'y axis names a declared but unselected measure',
        stack: (s) => (s.dashboards[0].widgets[1].chartConfig.yAxis = [{ field: 'total_amount' }]),
        // Declared but not selected: the fix is to select it, never to move the axis.
        errors: [{ code: 'chart_field_unknown', artifact: 'dashboard/exp_spending', path: '/widgets/1/chartConfig/yAxis/0/field', patch: null }],
      },
      {
        name: 'series names an unselected measure',
        stack: (s) => (s.dashboards[0].widgets[1].chartConfig.series = [{ name: 'avg_amount' }]),
        errors: [{ code: 'chart_field_unknown', artifact: 'dashboard/exp_spending', path: '/widgets/1/chartConfig/series/0/name' }],
      },
    ],
  }),
);
