import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './dashboard-filter-objects-exist.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'options from a platform object',
        stack: (s) =>
          (s.dashboards[0].globalFilters = [{ name: 'who', field: 'owner_id', optionsFrom: { object: 'sys_user', valueField: 'id', labelField: 'name' } }]),
      },
    ],
    invalid: [
      {
        name: 'user instead of sys_user, and a misspelt scope object',
        stack: (s) =>
          (s.dashboards[0].globalFilters = [
            { name: 'who', field: 'owner_id', object: 'exp_expenses', optionsFrom: { object: 'user', valueField: 'id', labelField: 'name' } },
          ]),
        errors: [
          {
            code: 'dangling_object',
            artifact: 'dashboard/exp_spending',
            path: '/globalFilters/0/object',
            patch: [{ op: 'replace', path: '/globalFilters/0/object', value: 'exp_expense' }],
          },
          { code: 'dangling_object', artifact: 'dashboard/exp_spending', path: '/globalFilters/0/optionsFrom/object' },
        ],
      },
    ],
  }),
);
