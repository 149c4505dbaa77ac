import { buildGraph, collectStack } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { baseStack, ruleTester } from '../rule-tester.ts';
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
      { name: 'a number key and the string of its digits are two keys', stack: (s) => s.data[0].records.push({ name: 7 }, { name: '7' }) },
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
      {
        name: 'repeated number keys and repeated string keys, mixed',
        stack: (s) => s.data[0].records.push({ name: 7 }, { name: '7' }, { name: 7 }, { name: '7' }),
        errors: [
          { code: 'seed_duplicate_key', artifact: 'seed/exp_category', path: '/records/5/name' },
          { code: 'seed_duplicate_key', artifact: 'seed/exp_category', path: '/records/6/name' },
        ],
      },
    ],
  }),
);

describe(`${rule.meta.name}: messages`, () => {
  it('counts the rows that land over string, number and keyless records alike, and shows the key', () => {
    const s = baseStack();
    const seed = s.data[0];
    const before = seed.records.length;
    seed.records.push({ name: 7 }, { name: '7' }, { name: 7 }, { budget: 1 }, { name: seed.records[0].name });
    const graph = buildGraph(collectStack(s)).graph;
    const found = [...rule.check(graph)].map((f) => f.message);
    const total = before + 5;
    // Distinct: the original names, 7 and "7"; the keyless record is a row of its own.
    const rows = before + 2 + 1;
    expect(found).toEqual([
      expect.stringMatching(new RegExp(`record ${before + 2} has the natural key "7" of record ${before} .* gets ${rows} rows for ${total} records`)),
      expect.stringMatching(
        new RegExp(`record ${before + 4} has the natural key "${seed.records[0].name}" of record 0 .* gets ${rows} rows for ${total} records`),
      ),
    ]);
  });
});
