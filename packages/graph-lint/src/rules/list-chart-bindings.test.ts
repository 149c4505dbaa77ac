import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './list-chart-bindings.ts';

const chartView = (chart: Record<string, unknown>) => ({
  name: 'exp_expense.chart',
  viewKind: 'list',
  object: 'exp_expense',
  config: { type: 'chart', columns: ['status'], chart: { chartType: 'bar', ...chart } },
});

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'bound chart', stack: (s) => s.views.push(chartView({ dataset: 'exp_expense_metrics', dimensions: ['status'], values: ['total_amount'] })) },
    ],
    invalid: [
      {
        name: 'chart view without a chart block',
        stack: (s) => s.views.push({ name: 'exp_expense.chart', viewKind: 'list', object: 'exp_expense', config: { type: 'chart', columns: ['status'] } }),
        errors: [{ code: 'dangling_dataset', artifact: 'view/exp_expense.chart', path: '' }],
      },
      {
        name: 'no dataset',
        stack: (s) => s.views.push(chartView({ values: ['x'] })),
        errors: [{ code: 'dangling_dataset', artifact: 'view/exp_expense.chart', path: '/chart' }],
      },
      {
        name: 'unknown dataset',
        stack: (s) => s.views.push(chartView({ dataset: 'exp_metrics', values: ['x'] })),
        errors: [{ code: 'dangling_dataset', artifact: 'view/exp_expense.chart', path: '/chart/dataset' }],
      },
      {
        name: 'unknown measure and dimension',
        stack: (s) => s.views.push(chartView({ dataset: 'exp_expense_metrics', dimensions: ['stat'], values: ['amount'] })),
        errors: [
          { code: 'unknown_measure', artifact: 'view/exp_expense.chart', path: '/chart/values/0' },
          { code: 'unknown_dimension', artifact: 'view/exp_expense.chart', path: '/chart/dimensions/0' },
        ],
      },
    ],
  }),
);
