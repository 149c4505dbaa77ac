import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './seed-duplicate-keys.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'insert mode duplicates rows instead (seed-insert-mode)',
        stack: (s) => {
          s.data[0].mode = 'insert';
          s.data[0].records.push({ name: 'Travel' });
        },
      },
      { name: 'a record without a key is its own row', stack: (s) => s.data[0].records.push({ budget: 5 }, { budget: 6 }) },
      {
        name: 'a composite key differing in one part',
        stack: (s) => {
          s.data[1].externalId = ['code', 'title'];
          s.data[1].records.push({ ...s.data[1].records[0], title: 'Other' });
        },
      },
    ],
    invalid: [
      {
        name: 'a repeated natural key, and the message counts the rows that land',
        stack: (s) => s.data[0].records.push({ name: 'Travel', budget: 9 }, { name: 'Meals', budget: 1 }),
        errors: [
          { code: 'seed_duplicate_key', artifact: 'seed/exp_category', path: '/records/3/name' },
          { code: 'seed_duplicate_key', artifact: 'seed/exp_category', path: '/records/4/name' },
        ],
      },
    ],
  }),
);
