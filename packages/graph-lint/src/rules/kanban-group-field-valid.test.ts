import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './kanban-group-field-valid.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'lookup', stack: (s) => (s.views[0].listViews.board.kanban.groupByField = 'category') },
      { name: 'master_detail', stack: (s) => (s.views[0].listViews.board.kanban.groupByField = 'report') },
      { name: 'kanban view without a block is L2 (layout_without_binding)', stack: (s) => delete s.views[0].listViews.board.kanban },
      {
        name: 'a block without groupByField is L2 too (layout_without_binding, with its patch)',
        stack: (s) => delete s.views[0].listViews.board.kanban.groupByField,
      },
    ],
    invalid: [
      {
        name: 'not groupable (currency)',
        stack: (s) => (s.views[0].listViews.board.kanban.groupByField = 'amount'),
        errors: [{ code: 'kanban_group_field_invalid', artifact: 'view/exp_expense.board', path: '/kanban/groupByField' }],
      },
      {
        name: 'unknown field',
        stack: (s) => (s.views[0].listViews.board.kanban.groupByField = 'stage'),
        errors: [{ code: 'kanban_group_field_invalid', artifact: 'view/exp_expense.board', path: '/kanban/groupByField' }],
      },
    ],
  }),
);
