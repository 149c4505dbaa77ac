import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './seed-object-exists.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'platform object seed (sys_business_unit, as app-showcase does)',
        stack: (s) => s.data.push({ object: 'sys_business_unit', externalId: 'id', records: [{ id: 'bu_1', name: 'Acme' }] }),
      },
    ],
    invalid: [
      {
        name: 'unknown object',
        stack: (s) => s.data.push({ object: 'exp_vendor', records: [{ name: 'x' }] }),
        errors: [{ code: 'dangling_object', artifact: 'seed/exp_vendor', path: '/object' }],
      },
      {
        name: 'second seed of an object is numbered',
        stack: (s) => s.data.push({ object: 'exp_catgory', records: [] }, { object: 'exp_catgory', records: [] }),
        errors: [
          { code: 'dangling_object', artifact: 'seed/exp_catgory', path: '/object', patch: [{ op: 'replace', path: '/object', value: 'exp_category' }] },
          { code: 'dangling_object', artifact: 'seed/exp_catgory#2', path: '/object' },
        ],
      },
    ],
  }),
);
