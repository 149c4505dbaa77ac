import { buildGraph, collectStack } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { decideSeedWrites, keyText } from './decide-seed-writes.ts';
import type { Prepared } from './prepare-seed-records.ts';

const OBJECTS = [{ name: 'acct', fields: { name: { type: 'text' }, code: { type: 'text', required: true }, n: { type: 'number' } } }];

/** Decides a chunk of `records` (their rows as given) for a seed of `mode`, with the existing rows `matches`. */
function decide(input: {
  mode: string;
  records: Array<Record<string, unknown>>;
  matches?: Array<[number, string]>;
  seen?: Array<[string, string]>;
  keyless?: boolean;
}) {
  const { graph } = buildGraph(collectStack({ objects: OBJECTS, data: [{ object: 'acct', externalId: 'name', mode: input.mode, records: input.records }] }));
  const seed = [...graph.seeds.values()][0]!;
  const chunk: Prepared[] = input.records.map((row, index) => ({ index, row: { ...row }, lookups: [] }));
  let n = 0;
  const seen = new Map(input.seen ?? []);
  const out = decideSeedWrites({
    seed,
    object: graph.objects.get('acct')!,
    chunk,
    keyless: input.keyless ?? false,
    matches: new Map(input.matches ?? []),
    seen,
    newId: () => `new${n++}`,
  });
  return {
    inserts: out.inserts.map((w) => [w.p.index, w.id, w.p.row]),
    updates: out.updates.map((w) => [w.p.index, w.id, w.p.row]),
    rowIds: [...out.rowIds],
    problems: out.problems,
    failed: out.failed,
    skipped: out.skipped,
    merged: out.merged,
    seen: [...seen],
  };
}

const none = { problems: [], failed: 0, skipped: 0, merged: 0 };

describe('decideSeedWrites', () => {
  it.each([
    {
      name: 'upsert: a new key inserts, an existing one updates its row',
      input: {
        mode: 'upsert',
        records: [
          { name: 'A', code: 'a' },
          { name: 'B', code: 'b' },
        ],
        matches: [[1, 'rowB']] as Array<[number, string]>,
      },
      want: {
        ...none,
        inserts: [[0, 'new0', { name: 'A', code: 'a' }]],
        updates: [[1, 'rowB', { name: 'B', code: 'b' }]],
        rowIds: [
          [0, 'new0'],
          [1, 'rowB'],
        ],
        seen: [
          ['A', 'new0'],
          ['B', 'rowB'],
        ],
      },
    },
    {
      name: 'upsert: two records of one existing key merge into one update, the later winning',
      input: {
        mode: 'upsert',
        records: [
          { name: 'A', code: 'a', n: 1 },
          { name: 'A', n: 2 },
        ],
        matches: [[0, 'rowA']] as Array<[number, string]>,
      },
      want: {
        ...none,
        merged: 1,
        inserts: [],
        updates: [[0, 'rowA', { name: 'A', code: 'a', n: 2 }]],
        rowIds: [
          [0, 'rowA'],
          [1, 'rowA'],
        ],
        seen: [['A', 'rowA']],
      },
    },
    {
      name: 'a key an earlier chunk wrote updates that row',
      input: { mode: 'upsert', records: [{ name: 'A', code: 'a' }], seen: [['A', 'rowA']] as Array<[string, string]> },
      want: { ...none, inserts: [], updates: [[0, 'rowA', { name: 'A', code: 'a' }]], rowIds: [[0, 'rowA']], seen: [['A', 'rowA']] },
    },
    {
      name: 'a number key and the string of its digits are one key (matched by the column text): the later merges',
      input: {
        mode: 'upsert',
        records: [
          { name: 5, code: 'a' },
          { name: '5', code: 'b' },
        ],
      },
      want: {
        ...none,
        merged: 1,
        inserts: [[0, 'new0', { name: '5', code: 'b' }]],
        updates: [],
        rowIds: [
          [0, 'new0'],
          [1, 'new0'],
        ],
        seen: [['5', 'new0']],
      },
    },
    {
      name: 'ignore: an existing row is left as it is',
      input: { mode: 'ignore', records: [{ name: 'A', code: 'a' }], matches: [[0, 'rowA']] as Array<[number, string]> },
      want: { ...none, skipped: 1, inserts: [], updates: [], rowIds: [], seen: [] },
    },
    {
      name: 'insert: always a new row, even for a known key',
      input: { mode: 'insert', records: [{ name: 'A', code: 'a' }], matches: [[0, 'rowA']] as Array<[number, string]> },
      want: { ...none, inserts: [[0, 'new0', { name: 'A', code: 'a' }]], updates: [], rowIds: [[0, 'new0']], seen: [['A', 'new0']] },
    },
    {
      name: 'update: a key with no row writes nothing and is a failure',
      input: { mode: 'update', records: [{ name: 'A', code: 'a' }] },
      want: {
        ...none,
        failed: 1,
        problems: [{ index: 0, message: `mode 'update' found no "acct" row with name = "A"; nothing was written` }],
        inserts: [],
        updates: [],
        rowIds: [],
        seen: [],
      },
    },
    {
      name: 'a key that could not be matched is skipped (already reported)',
      input: { mode: 'upsert', records: [{ name: 'A', code: 'a' }], matches: [[0, '']] as Array<[number, string]> },
      want: { ...none, inserts: [], updates: [], rowIds: [], seen: [] },
    },
    {
      name: 'the write contract refuses an insert without a required value',
      input: { mode: 'upsert', records: [{ name: 'A' }] },
      want: {
        ...none,
        failed: 1,
        problems: [
          { index: 0, field: 'code', message: 'row not written: field "code" is required and the record gives it no value (ObjectStack rejects the insert)' },
        ],
        inserts: [],
        updates: [],
        rowIds: [],
        seen: [],
      },
    },
    {
      name: 'keyless: every record inserts, with its own id when it gives one',
      input: {
        mode: 'upsert',
        keyless: true,
        records: [
          { name: 'A', code: 'a', id: 'given' },
          { name: 'A', code: 'a' },
        ],
      },
      want: {
        ...none,
        inserts: [
          [0, 'given', { name: 'A', code: 'a', id: 'given' }],
          [1, 'new0', { name: 'A', code: 'a' }],
        ],
        updates: [],
        rowIds: [
          [0, 'given'],
          [1, 'new0'],
        ],
        seen: [],
      },
    },
  ])('$name', ({ input, want }) => {
    expect(decide(input)).toEqual(want);
  });
});

describe('keyText', () => {
  it.each([
    { name: 'one value', values: ['A'], want: '["A"]' },
    { name: 'values as text', values: [1, true], want: '["1","true"]' },
    { name: 'a missing part', values: ['A', null], want: undefined },
  ])('$name', ({ values, want }) => {
    expect(keyText(values)).toBe(want);
  });
});
