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
        errors: [{ code: 'chart_field_unknown', artifact: 'dashboard/exp_spending', path: '/widgets/1/chartConfig/xAxis/field' }],
      },
      {
        name: 'y axis names a declared but unselected measure',
        stack: (s) => (s.dashboards[0].widgets[1].chartConfig.yAxis = [{ field: 'total_amount' }]),
        errors: [{ code: 'chart_field_unknown', artifact: 'dashboard/exp_spending', path: '/widgets/1/chartConfig/yAxis/0/field' }],
      },
      {
        name: 'series names an unselected measure',
        stack: (s) => (s.dashboards[0].widgets[1].chartConfig.series = [{ name: 'avg_amount' }]),
        errors: [{ code: 'chart_field_unknown', artifact: 'dashboard/exp_spending', path: '/widgets/1/chartConfig/series/0/name' }],
      },
    ],
  }),
);
