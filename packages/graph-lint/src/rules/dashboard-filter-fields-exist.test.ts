import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './dashboard-filter-fields-exist.ts';

const categoryDataset = {
  name: 'exp_category_metrics',
  label: 'Categories',
  object: 'exp_category',
  dimensions: [{ name: 'name', field: 'name' }],
  measures: [{ name: 'n', aggregate: 'count' }],
};

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'system field as date range', stack: (s) => (s.dashboards[0].dateRange.field = 'created_at') },
      {
        name: 'widget opts out with filterBindings false',
        stack: (s) => {
          s.datasets.push(categoryDataset);
          s.dashboards[0].widgets.push({ id: 'cats', type: 'metric', dataset: 'exp_category_metrics', values: ['n'], filterBindings: { dateRange: false } });
        },
      },
      {
        name: 'widget rebinds to a field of its own object',
        stack: (s) => {
          s.datasets.push(categoryDataset);
          s.dashboards[0].widgets.push({
            id: 'cats',
            type: 'metric',
            dataset: 'exp_category_metrics',
            values: ['n'],
            filterBindings: { dateRange: 'created_at' },
          });
        },
      },
      {
        name: 'widget-scoped global filter only reaches its targets',
        stack: (s) => {
          s.datasets.push(categoryDataset);
          s.dashboards[0].widgets.push({ id: 'cats', type: 'metric', dataset: 'exp_category_metrics', values: ['n'], filterBindings: { dateRange: false } });
          s.dashboards[0].globalFilters = [{ name: 'st', field: 'status', scope: 'widget', targetWidgets: ['total'] }];
        },
      },
    ],
    invalid: [
      {
        name: 'broadcast date field missing on another widget object',
        stack: (s) => {
          s.datasets.push(categoryDataset);
          s.dashboards[0].widgets.push({ id: 'cats', type: 'metric', dataset: 'exp_category_metrics', values: ['n'] });
        },
        errors: [{ code: 'dashboard_filter_field_unknown', artifact: 'dashboard/exp_spending', path: '/dateRange/field' }],
      },
      {
        name: 'global filter field missing everywhere: one issue for the filter, not one per widget',
        stack: (s) => (s.dashboards[0].globalFilters = [{ name: 'region', field: 'region' }]),
        errors: [{ code: 'dashboard_filter_field_unknown', artifact: 'dashboard/exp_spending', path: '/globalFilters/0/field' }],
      },
      {
        name: 'a typo in the date range field every widget receives: one issue with a safe patch',
        stack: (s) => (s.dashboards[0].dateRange.field = 'spent_onn'),
        errors: [
          {
            code: 'dashboard_filter_field_unknown',
            artifact: 'dashboard/exp_spending',
            path: '/dateRange/field',
            patch: [{ op: 'replace', path: '/dateRange/field', value: 'spent_on' }],
            fixSafety: 'safe',
          },
        ],
      },
      {
        name: 'rebinding to a missing field',
        stack: (s) => (s.dashboards[0].widgets[0].filterBindings = { dateRange: 'spent_at' }),
        errors: [
          {
            code: 'dashboard_filter_field_unknown',
            artifact: 'dashboard/exp_spending',
            path: '/widgets/0/filterBindings/dateRange',
            patch: [{ op: 'replace', path: '/widgets/0/filterBindings/dateRange', value: 'spent_on' }],
          },
        ],
      },
    ],
  }),
);
