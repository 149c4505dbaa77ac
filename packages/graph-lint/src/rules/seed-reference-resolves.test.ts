import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './seed-reference-resolves.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'a stack object without a seed is not judged (rows come from elsewhere)',
        stack: (s) => {
          s.objects.push({ name: 'exp_vendor', fields: { name: { type: 'text' } } });
          s.objects[1].fields.vendor = { type: 'lookup', reference: 'exp_vendor' };
          s.data[1].records[0].vendor = 'Acme';
        },
      },
      {
        name: 'a user lookup to a seeded sys_user record',
        stack: (s) => {
          s.objects[1].fields.owner = { type: 'user' };
          s.data.push({ object: 'sys_user', externalId: 'email', records: [{ name: 'Ada', email: 'ada@example.com' }] });
          s.data[1].records[0].owner = 'ada@example.com';
        },
      },
      {
        name: 'a user lookup by a row id is not judged',
        stack: (s) => {
          s.objects[1].fields.owner = { type: 'user' };
          s.data[1].records[0].owner = '3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b';
        },
      },
      {
        name: 'explicit id matches',
        stack: (s) => {
          s.data[0].records[0].id = 'cat_travel';
          s.data[1].records[0].category = 'cat_travel';
        },
      },
      {
        name: 'a row id (UUID) of an existing row is not judged: the seed writer resolves ids',
        stack: (s) => (s.data[1].records[0].category = '3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b'),
      },
      {
        name: 'target seed staged as a draft',
        stack: (s) => (s.data[1].records[0].category = 'Office'),
        drafts: (b) => ({ data: [{ ...b.data[0], records: [...b.data[0].records, { name: 'Office' }] }] }),
      },
      {
        name: 'a draft seed adding rows keeps the published rows resolvable (upsert never deletes)',
        drafts: (b) => ({ data: [{ ...b.data[0], records: [{ name: 'Office' }] }] }),
      },
      {
        name: 'multiple lookup: each key is judged, null elements are skipped as the loader skips them',
        stack: (s) => {
          s.objects[1].fields.tags = { type: 'lookup', reference: 'exp_category', multiple: true };
          s.data[1].records[0].tags = ['Travel', null, 'Meals'];
        },
      },
      { name: 'null lookup', stack: (s) => (s.data[1].records[0].category = null) },
      { name: "a target seed keyed by a missing field is that seed's unknown_field, not a cascade here", stack: (s) => (s.data[0].externalId = 'nme') },
    ],
    invalid: [
      {
        name: 'a draft seed in replace mode retires the published rows',
        drafts: (b) => ({ data: [{ ...b.data[0], mode: 'replace', records: [{ name: 'Office' }] }] }),
        errors: [0, 1, 2, 3].map((i) => ({ code: 'unresolved_seed_reference', artifact: 'seed/exp_expense', path: `/records/${i}/category` })),
      },
      {
        name: 'a user lookup (or a lookup to sys_user) that no sys_user seed writes',
        stack: (s) => {
          s.objects[1].fields.owner = { type: 'user' };
          s.objects[1].fields.approver = { type: 'lookup', reference: 'sys_user' };
          s.data[1].records[0].owner = 'ada@example.com';
          s.data[1].records[1].approver = 'Grace';
          s.data[2].records[0].submitter = 'ada@example.com';
        },
        errors: [
          { code: 'unresolved_seed_reference', artifact: 'seed/exp_expense', path: '/records/0/owner', patch: null },
          { code: 'unresolved_seed_reference', artifact: 'seed/exp_expense', path: '/records/1/approver', patch: null },
          { code: 'unresolved_seed_reference', artifact: 'seed/exp_report', path: '/records/0/submitter', patch: null },
        ],
      },
      {
        name: 'a user lookup that matches no seeded sys_user record by its key',
        stack: (s) => {
          s.objects[1].fields.owner = { type: 'user' };
          s.data.push({ object: 'sys_user', externalId: 'email', records: [{ name: 'Ada', email: 'ada@example.com' }] });
          s.data[1].records[0].owner = 'Ada';
        },
        errors: [{ code: 'unresolved_seed_reference', artifact: 'seed/exp_expense', path: '/records/0/owner' }],
      },
      {
        name: 'typo in natural key',
        stack: (s) => (s.data[1].records[2].category = 'Meal'),
        errors: [
          {
            code: 'unresolved_seed_reference',
            artifact: 'seed/exp_expense',
            path: '/records/2/category',
            patch: [{ op: 'replace', path: '/records/2/category', value: 'Meals' }],
          },
        ],
      },
      {
        name: '{externalId} wrapper never resolves',
        stack: (s) => (s.data[1].records[0].report = { externalId: 'R-2026-01' }),
        errors: [{ code: 'unresolved_seed_reference', artifact: 'seed/exp_expense', path: '/records/0/report' }],
      },
      {
        name: 'keyed by externalId, not name',
        stack: (s) => (s.data[1].records[1].report = 'Report 1'),
        errors: [{ code: 'unresolved_seed_reference', artifact: 'seed/exp_expense', path: '/records/1/report' }],
      },
    ],
  }),
);
