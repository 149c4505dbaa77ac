import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './view-filter-operators-known.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'aliases',
        stack: (s) =>
          (s.views[0].listViews.board.filter = [
            { field: 'status', operator: 'ne', value: 'x' },
            { field: 'amount', operator: 'gte', value: 1 },
          ]),
      },
      { name: 'no operator (equals by default)', stack: (s) => (s.views[0].listViews.board.filter = [{ field: 'status', value: 'x' }]) },
    ],
    invalid: [
      {
        name: 'unknown and misspelt operators',
        stack: (s) =>
          (s.views[0].listViews.board.filter = [
            { field: 'status', operator: 'not_equal', value: 'x' },
            { field: 'amount', operator: 'bogus_op', value: 1 },
          ]),
        errors: [
          {
            code: 'invalid_artifact',
            artifact: 'view/exp_expense.board',
            path: '/filter/0/operator',
            patch: [{ op: 'replace', path: '/filter/0/operator', value: 'not_equals' }],
          },
          { code: 'invalid_artifact', artifact: 'view/exp_expense.board', path: '/filter/1/operator' },
        ],
      },
    ],
  }),
);
