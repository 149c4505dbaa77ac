import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './widget-dimension-exists.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'a widget on an unknown dataset is left to dangling_dataset',
        stack: (s) => Object.assign(s.dashboards[0].widgets[1], { dataset: 'nope', dimensions: ['zzz'] }),
      },
    ],
    invalid: [
      {
        name: 'field path instead of dimension name',
        stack: (s) => (s.dashboards[0].widgets[2].dimensions = ['category.name']),
        errors: [{ code: 'unknown_dimension', artifact: 'dashboard/exp_spending', path: '/widgets/2/dimensions/0' }],
      },
      {
        name: 'typo',
        stack: (s) => (s.dashboards[0].widgets[1].dimensions = ['stauts']),
        errors: [{ code: 'unknown_dimension', artifact: 'dashboard/exp_spending', path: '/widgets/1/dimensions/0', suggestion: 'status' }],
      },
    ],
  }),
);
