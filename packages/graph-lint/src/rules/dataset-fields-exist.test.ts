import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './dataset-fields-exist.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'count needs no field', stack: (s) => s.datasets[0].measures.push({ name: 'n', aggregate: 'count' }) },
      { name: 'dotted fields are the compiler’s', stack: (s) => (s.datasets[0].dimensions[1].field = 'category.nope') },
      { name: 'system field dimension', stack: (s) => s.datasets[0].dimensions.push({ name: 'created', field: 'created_at', dateGranularity: 'week' }) },
    ],
    invalid: [
      {
        name: 'unknown dimension and measure fields',
        stack: (s) => {
          s.datasets[0].dimensions[0].field = 'state';
          s.datasets[0].measures[1].field = 'ammount';
        },
        errors: [
          { code: 'unknown_field', artifact: 'dataset/exp_expense_metrics', path: '/dimensions/0/field' },
          {
            code: 'unknown_field',
            artifact: 'dataset/exp_expense_metrics',
            path: '/measures/1/field',
            patch: [{ op: 'replace', path: '/measures/1/field', value: 'amount' }],
          },
        ],
      },
    ],
  }),
);
