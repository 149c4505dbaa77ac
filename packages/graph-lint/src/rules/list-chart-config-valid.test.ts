import { describe } from 'vitest';
import { ruleTester, type Stack } from '../rule-tester.ts';
import rule from './list-chart-config-valid.ts';

const chartView = (s: Stack, chart: Record<string, unknown>) => (s.views[0].listViews.spend = { type: 'chart', columns: ['title'], chart });

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'a bar chart of one measure', stack: (s) => chartView(s, { chartType: 'bar', dataset: 'exp_expense_metrics', values: ['total_amount'] }) },
      { name: 'chartType defaults to bar', stack: (s) => chartView(s, { dataset: 'exp_expense_metrics', dimensions: ['status'], values: ['expense_count'] }) },
    ],
    invalid: [
      {
        name: 'a dashboard-only chart type: suggested when near, else patched to bar as a guess',
        stack: (s) => {
          chartView(s, { chartType: 'pies', dataset: 'exp_expense_metrics', values: ['total_amount'] });
          s.views[0].listViews.funnel = { type: 'chart', columns: ['title'], chart: { chartType: 'funnel', dataset: 'exp_expense_metrics', values: ['n'] } };
        },
        errors: [
          {
            code: 'invalid_artifact',
            artifact: 'view/exp_expense.spend',
            path: '/chart/chartType',
            patch: [{ op: 'replace', path: '/chart/chartType', value: 'pie' }],
          },
          { code: 'invalid_artifact', artifact: 'view/exp_expense.funnel', path: '/chart/chartType', fixSafety: 'unsafe' },
        ],
      },
      {
        name: 'no values, or an empty list',
        stack: (s) => {
          chartView(s, { chartType: 'line', dataset: 'exp_expense_metrics' });
          s.views[0].listViews.empty = { type: 'chart', columns: ['title'], chart: { dataset: 'exp_expense_metrics', values: [] } };
        },
        errors: [
          { code: 'invalid_artifact', artifact: 'view/exp_expense.spend', path: '/chart/values' },
          { code: 'invalid_artifact', artifact: 'view/exp_expense.empty', path: '/chart/values' },
        ],
      },
    ],
  }),
);
