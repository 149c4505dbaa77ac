import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './date-preset-comparands.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'date macros and ISO dates are bounds; equality with a preset-like value is a select value',
        stack: (s) => {
          s.dashboards[0].widgets[0].filter = { spent_on: { $gte: '{30_days_ago}', $lt: '2026-01-15' }, status: 'this_month' };
          s.views[0].listViews.board.filter.push({ field: 'status', operator: 'equals', value: 'last_week' });
        },
      },
      { name: 'a preset is what a dashboard date range takes', stack: (s) => (s.dashboards[0].dateRange.defaultRange = 'this_quarter') },
    ],
    invalid: [
      {
        name: 'presets as ordering comparands in widget, measure and view filters (and a $between end)',
        stack: (s) => {
          s.dashboards[0].widgets[0].filter = { spent_on: { $gte: 'last_30_days' } };
          s.datasets[0].measures[2].filter = { $and: [{ spent_on: { $between: ['{month_start}', 'this_month'] } }] };
          s.views[0].listViews.board.filter.push({ field: 'spent_on', operator: 'after', value: 'last_week' });
        },
        errors: [
          { code: 'invalid_artifact', artifact: 'dashboard/exp_spending', path: '/widgets/0/filter/spent_on/$gte' },
          { code: 'invalid_artifact', artifact: 'dataset/exp_expense_metrics', path: '/measures/2/filter/$and/0/spent_on/$between/1' },
          { code: 'invalid_artifact', artifact: 'view/exp_expense.board', path: '/filter/1/value' },
        ],
      },
    ],
  }),
);
