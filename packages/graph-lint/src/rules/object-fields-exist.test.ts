import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './object-fields-exist.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [{ name: 'system field as title', stack: (s) => (s.objects[0].nameField = 'id') }],
    invalid: [
      {
        name: 'nameField, searchableFields, highlightFields, stageField',
        stack: (s) => Object.assign(s.objects[1], { nameField: 'titel', searchableFields: ['title', 'descr'], highlightFields: ['amt'], stageField: 'stage' }),
        errors: [
          { code: 'unknown_display_field', artifact: 'object/exp_expense', path: '/nameField', patch: [{ op: 'replace', path: '/nameField', value: 'title' }] },
          { code: 'unknown_field', artifact: 'object/exp_expense', path: '/searchableFields/1' },
          { code: 'unknown_field', artifact: 'object/exp_expense', path: '/highlightFields/0' },
          { code: 'unknown_display_field', artifact: 'object/exp_expense', path: '/stageField' },
        ],
      },
    ],
  }),
);
