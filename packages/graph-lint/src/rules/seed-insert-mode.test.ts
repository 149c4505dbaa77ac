import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './seed-insert-mode.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [{ name: 'ignore mode', stack: (s) => (s.data[0].mode = 'ignore') }],
    invalid: [
      {
        name: 'insert mode',
        stack: (s) => (s.data[0].mode = 'insert'),
        errors: [{ code: 'seed_insert_mode_replay', artifact: 'seed/exp_category', path: '/mode', patch: [{ op: 'replace', path: '/mode', value: 'upsert' }] }],
      },
    ],
  }),
);
