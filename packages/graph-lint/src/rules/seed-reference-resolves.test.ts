import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './seed-reference-resolves.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'target without a seed is not judged (rows come from elsewhere)', stack: (s) => (s.data[2].records[0].submitter = 'ada@example.com') },
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
