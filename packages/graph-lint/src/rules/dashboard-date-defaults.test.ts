import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './dashboard-date-defaults.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'custom opens the picker', stack: (s) => (s.dashboards[0].dateRange.defaultRange = 'custom') },
      {
        name: 'a preset, an ISO date and a macro as date filter defaults; a select filter may default to any value',
        stack: (s) =>
          (s.dashboards[0].globalFilters = [
            { name: 'a', field: 'spent_on', type: 'date', defaultValue: 'last_7_days' },
            { name: 'b', field: 'spent_on', type: 'date', defaultValue: '2026-01-15' },
            { name: 'c', field: 'spent_on', type: 'date', defaultValue: '{month_start}' },
            { name: 'd', field: 'status', type: 'select', defaultValue: 'last_7_dayz' },
          ]),
      },
    ],
    invalid: [
      {
        name: 'a defaultRange outside the presets (patched to the near miss) and date filter defaults the format cannot resolve',
        stack: (s) => {
          s.dashboards[0].dateRange.defaultRange = 'last_30_dayz';
          s.dashboards[0].globalFilters = [
            { name: 'a', field: 'spent_on', type: 'date', defaultValue: 'last_7_dayz' },
            { name: 'b', field: 'spent_on', type: 'date', defaultValue: 'custom' },
            { name: 'c', field: 'spent_on', type: 'date', defaultValue: 7 },
          ];
        },
        errors: [
          {
            code: 'invalid_artifact',
            artifact: 'dashboard/exp_spending',
            path: '/dateRange/defaultRange',
            patch: [{ op: 'replace', path: '/dateRange/defaultRange', value: 'last_30_days' }],
          },
          { code: 'invalid_artifact', artifact: 'dashboard/exp_spending', path: '/globalFilters/0/defaultValue', suggestion: 'last_7_days' },
          { code: 'invalid_artifact', artifact: 'dashboard/exp_spending', path: '/globalFilters/1/defaultValue' },
          { code: 'invalid_artifact', artifact: 'dashboard/exp_spending', path: '/globalFilters/2/defaultValue' },
        ],
      },
    ],
  }),
);
