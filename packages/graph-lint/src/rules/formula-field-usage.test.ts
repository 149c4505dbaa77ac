import { describe } from 'vitest';
import { ruleTester, type Stack } from '../rule-tester.ts';
import rule from './formula-field-usage.ts';

/** The example's expense gains a formula field `net` (a CEL expression). */
const withFormula = (s: Stack) => (s.objects[1].fields.net = { type: 'formula', expression: { dialect: 'cel', source: 'record.amount * 0.8' } });

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'a formula shown as a column is fine',
        stack: (s) => {
          withFormula(s);
          s.views[0].list.columns.push({ field: 'net' });
        },
      },
      {
        name: 'a formula counted or min/maxed is left to the compiler; summing a stored summary is fine',
        stack: (s) => {
          withFormula(s);
          s.objects[1].fields.lines = { type: 'summary', summaryOperations: { object: 'x', field: 'y', function: 'sum' } };
          s.datasets[0].measures.push({ name: 'lines_sum', aggregate: 'sum', field: 'lines' }, { name: 'net_n', aggregate: 'count', field: 'net' });
        },
      },
    ],
    invalid: [
      {
        name: 'sorted and filtered in a view (row and Mongo filters)',
        stack: (s) => {
          withFormula(s);
          s.views[0].list.sort = [{ field: 'net', order: 'desc' }];
          s.views[0].listViews.board.filter.push({ field: 'net', operator: 'greater_than', value: 10 });
          s.views[0].listViews.by_day.filter = { $or: [{ net: { $gt: 1 } }] };
        },
        errors: [
          { code: 'field_type_mismatch', artifact: 'view/exp_expense.default', path: '/sort/0/field' },
          { code: 'field_type_mismatch', artifact: 'view/exp_expense.board', path: '/filter/1/field' },
          { code: 'field_type_mismatch', artifact: 'view/exp_expense.by_day', path: '/filter/$or/0/net' },
        ],
      },
      {
        name: 'summed and filtered in a dataset, filtered in a widget',
        stack: (s) => {
          withFormula(s);
          s.datasets[0].measures.push({ name: 'net_total', aggregate: 'sum', field: 'net', filter: { net: { $gt: 0 } } });
          s.dashboards[0].widgets[0].filter = { net: { $gt: 1 } };
        },
        errors: [
          { code: 'field_type_mismatch', artifact: 'dataset/exp_expense_metrics', path: '/measures/4/field' },
          { code: 'field_type_mismatch', artifact: 'dataset/exp_expense_metrics', path: '/measures/4/filter/net' },
          { code: 'field_type_mismatch', artifact: 'dashboard/exp_spending', path: '/widgets/0/filter/net' },
        ],
      },
    ],
  }),
);
