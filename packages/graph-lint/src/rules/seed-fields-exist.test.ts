import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './seed-fields-exist.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [{ name: 'system fields may be seeded', stack: (s) => Object.assign(s.data[0].records[0], { id: 'cat_travel', created_at: '2026-01-01' }) }],
    invalid: [
      {
        name: 'externalId naming a missing field',
        stack: (s) => (s.data[0].externalId = 'nme'),
        errors: [{ code: 'unknown_field', artifact: 'seed/exp_category', path: '/externalId', patch: [{ op: 'replace', path: '/externalId', value: 'name' }] }],
      },
      {
        name: 'one issue per unknown key, not per record',
        stack: (s) => s.data[1].records.forEach((r: Record<string, unknown>) => (r.titel = 'x')),
        errors: [{ code: 'unknown_field', artifact: 'seed/exp_expense', path: '/records/0/titel', suggestion: 'title' }],
      },
    ],
  }),
);
