import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './date-fields-are-dates.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'a datetime axis and a system timestamp', stack: (s) => (s.views[0].listViews.by_day.calendar.endDateField = 'created_at') },
      {
        name: 'a widget that opts out of the date range, or rebinds it to a date',
        stack: (s) => {
          s.dashboards[0].dateRange.field = 'title';
          for (const w of s.dashboards[0].widgets) w.filterBindings = { dateRange: 'spent_on' };
          s.dashboards[0].widgets[0].filterBindings = { dateRange: false };
        },
      },
      { name: 'a missing field is another rule’s', stack: (s) => (s.views[0].listViews.by_day.calendar.startDateField = 'nope') },
    ],
    invalid: [
      {
        name: 'calendar, timeline and gantt axes on a text or currency field (the message names the type)',
        stack: (s) => {
          s.views[0].listViews.by_day.calendar.startDateField = 'title';
          s.views[0].listViews.line = { type: 'timeline', columns: ['title'], timeline: { startDateField: 'spent_on', endDateField: 'amount' } };
          s.views[0].listViews.plan = { type: 'gantt', columns: ['title'], gantt: { startDateField: 'code', endDateField: 'spent_on' } };
        },
        errors: [
          { code: 'field_type_mismatch', artifact: 'view/exp_expense.by_day', path: '/calendar/startDateField' },
          { code: 'field_type_mismatch', artifact: 'view/exp_expense.line', path: '/timeline/endDateField' },
          { code: 'field_type_mismatch', artifact: 'view/exp_expense.plan', path: '/gantt/startDateField' },
        ],
      },
      {
        name: 'a dashboard date range and a date global filter on non-date fields (once per object)',
        stack: (s) => {
          s.dashboards[0].dateRange.field = 'amount';
          s.dashboards[0].globalFilters = [
            { name: 'when', field: 'status', type: 'date' },
            { name: 'who', field: 'title', type: 'text' },
          ];
        },
        errors: [
          { code: 'field_type_mismatch', artifact: 'dashboard/exp_spending', path: '/dateRange/field' },
          { code: 'field_type_mismatch', artifact: 'dashboard/exp_spending', path: '/globalFilters/0/field' },
        ],
      },
    ],
  }),
);
