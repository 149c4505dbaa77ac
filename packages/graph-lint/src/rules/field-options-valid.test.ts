import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './field-options-valid.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'a default among the options', stack: (s) => (s.objects[1].fields.status.defaultValue = 'approved') },
      {
        name: 'a multiselect default of several options, a CEL default, free-form tags without options',
        stack: (s) => {
          s.objects[1].fields.tags = { type: 'multiselect', options: ['a', 'b'], defaultValue: ['a', 'b'] };
          s.objects[1].fields.mood = { type: 'select', options: ['x'], defaultValue: { dialect: 'cel', source: "'x'" } };
          s.objects[1].fields.labels = { type: 'multiselect', defaultValue: ['anything'] };
        },
      },
    ],
    invalid: [
      {
        name: 'one value twice (the repeat is a guess to remove)',
        stack: (s) => s.objects[1].fields.status.options.push({ label: 'Approved again', value: 'approved' }),
        errors: [
          {
            code: 'duplicate_option_value',
            artifact: 'object/exp_expense',
            path: '/fields/status/options/3',
            patch: [{ op: 'remove', path: '/fields/status/options/3' }],
            fixSafety: 'unsafe',
          },
        ],
      },
      {
        name: 'defaults outside the options: a label, a multiselect element, an array on a single select',
        stack: (s) => {
          s.objects[1].fields.status.defaultValue = 'Approved';
          s.objects[1].fields.tags = { type: 'multiselect', options: ['a', 'b'], defaultValue: ['a', 'c'] };
          s.objects[2].fields.state.defaultValue = ['open'];
        },
        errors: [
          { code: 'invalid_artifact', artifact: 'object/exp_expense', path: '/fields/status/defaultValue' },
          { code: 'invalid_artifact', artifact: 'object/exp_expense', path: '/fields/tags/defaultValue' },
          { code: 'invalid_artifact', artifact: 'object/exp_report', path: '/fields/state/defaultValue' },
        ],
      },
    ],
  }),
);
