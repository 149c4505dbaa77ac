import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './seed-value-in-options.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'CEL envelope is not judged', stack: (s) => (s.data[1].records[0].status = { dialect: 'cel', source: "'draft'" }) },
      {
        name: 'multiselect arrays',
        stack: (s) => {
          s.objects[1].fields.tags = {
            type: 'multiselect',
            options: [
              { label: 'A', value: 'a' },
              { label: 'B', value: 'b' },
            ],
          };
          s.data[1].records[0].tags = ['a', 'b'];
        },
      },
    ],
    invalid: [
      {
        name: 'hostile object value does not crash the rule',
        stack: (s) => (s.data[1].records[0].status = { toString: 1, valueOf: 2 }),
        errors: [{ code: 'seed_value_not_in_options', artifact: 'seed/exp_expense', path: '/records/0/status' }],
      },
      {
        name: 'label instead of value gets a patch',
        stack: (s) => (s.data[1].records[0].status = 'Approved'),
        errors: [
          {
            code: 'seed_value_not_in_options',
            artifact: 'seed/exp_expense',
            path: '/records/0/status',
            patch: [{ op: 'replace', path: '/records/0/status', value: 'approved' }],
          },
        ],
      },
      {
        name: 'value outside the options',
        stack: (s) => (s.data[2].records[1].state = 'archived'),
        errors: [{ code: 'seed_value_not_in_options', artifact: 'seed/exp_report', path: '/records/1/state' }],
      },
      {
        name: 'multiselect element',
        stack: (s) => {
          s.objects[1].fields.tags = { type: 'multiselect', options: [{ label: 'A', value: 'a' }] };
          s.data[1].records[0].tags = ['a', 'z'];
        },
        errors: [{ code: 'seed_value_not_in_options', artifact: 'seed/exp_expense', path: '/records/0/tags/1' }],
      },
    ],
  }),
);
