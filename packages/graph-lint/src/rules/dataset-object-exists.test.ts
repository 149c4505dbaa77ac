import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './dataset-object-exists.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'source alias',
        stack: (s) => {
          s.datasets[0].source = s.datasets[0].object;
          delete s.datasets[0].object;
        },
      },
    ],
    invalid: [
      {
        name: 'unknown object with patch',
        stack: (s) => (s.datasets[0].object = 'exp_expenses'),
        errors: [
          {
            code: 'dangling_object',
            artifact: 'dataset/exp_expense_metrics',
            path: '/object',
            patch: [{ op: 'replace', path: '/object', value: 'exp_expense' }],
          },
        ],
      },
      {
        name: 'no object',
        stack: (s) => delete s.datasets[0].object,
        errors: [{ code: 'dangling_object', artifact: 'dataset/exp_expense_metrics', path: '' }],
      },
    ],
  }),
);
