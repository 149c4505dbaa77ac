import { buildGraph, collectStack, type ObjectNode, type SeedNode } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { fieldPlanner, lookupKeys, planField, prepareSeedRecords } from './prepare-seed-records.ts';

const NOW = new Date('2026-03-15T10:30:00Z');
const OBJECTS = [
  {
    name: 'acct',
    fields: {
      name: { type: 'text' },
      revenue: { type: 'currency' },
      tags: { type: 'multiselect' },
      since: { type: 'date' },
      stage: { type: 'select', options: ['a', 'b'] },
      note: { type: 'text' },
    },
  },
  {
    name: 'contact',
    fields: {
      email: { type: 'text' },
      acct: { type: 'lookup', reference: 'acct' },
      accts: { type: 'lookup', reference: 'acct', multiple: true },
      born: { type: 'date' },
    },
  },
];

/** The seed of `object` built from `records`, and its object, as the writer sees them. */
function seedOf(object: string, records: unknown[]): { seed: SeedNode; obj: ObjectNode } {
  const { graph } = buildGraph(collectStack({ objects: OBJECTS, data: [{ object, externalId: 'name', records }] }));
  return { seed: [...graph.seeds.values()][0]!, obj: graph.objects.get(object)! };
}

function prepare(object: string, records: unknown[], unknownReported = new Set<string>()) {
  const { seed, obj } = seedOf(object, records);
  return prepareSeedRecords({ seed, planOf: fieldPlanner(obj), start: 0, end: records.length, now: NOW, nowIso: NOW.toISOString(), unknownReported });
}

describe('planField', () => {
  const { obj } = seedOf('contact', []);
  it.each([
    { name: 'id is text', key: 'id', want: { column: 'id', type: { base: 'text', array: false } } },
    { name: 'a date field', key: 'born', want: { column: 'born', type: { base: 'date', array: false }, fieldType: 'date' } },
    {
      name: 'a lookup',
      key: 'acct',
      want: { column: 'acct', type: { base: 'text', array: false }, fieldType: 'lookup', relation: { target: 'acct', multiple: false } },
    },
    {
      name: 'a multiple lookup',
      key: 'accts',
      want: { column: 'accts', type: { base: 'text', array: true }, fieldType: 'lookup', relation: { target: 'acct', multiple: true } },
    },
    { name: 'not a field', key: 'nope', want: undefined },
  ])('$name', ({ key, want }) => {
    expect(planField(obj, key)).toEqual(want);
  });
});

describe('lookupKeys', () => {
  it.each([
    { name: 'null is no key', value: null, multiple: false, want: [] },
    { name: 'a string', value: 'Acme', multiple: false, want: ['Acme'] },
    { name: 'a number is its text', value: 7, multiple: false, want: ['7'] },
    { name: 'a list for multiple, nulls dropped', value: ['A', null, 'B'], multiple: true, want: ['A', 'B'] },
    { name: 'a list for a single lookup', value: ['A'], multiple: false, want: 'a list was given to a single-value lookup; write one natural-key string' },
    {
      name: 'an {externalId} wrapper',
      value: { externalId: 'A' },
      multiple: false,
      want: 'lookup value {"externalId":"A"} is not a key string; write the target\'s natural key (e.g. its name) as a plain string',
    },
  ])('$name', ({ value, multiple, want }) => {
    expect(lookupKeys(value, multiple)).toEqual(want);
  });
});

describe('prepareSeedRecords', () => {
  it.each([
    {
      name: 'values converted, timestamps filled',
      object: 'acct',
      records: [{ name: 'A', revenue: '10.5', tags: 'x', since: '2026-01-02' }],
      want: {
        chunk: [
          {
            index: 0,
            row: { name: 'A', revenue: '10.5', tags: ['x'], since: '2026-01-02', created_at: NOW.toISOString(), updated_at: NOW.toISOString() },
            lookups: [],
            stamped: true,
          },
        ],
        problems: [],
        refused: 0,
      },
    },
    {
      name: 'a CEL value against the clock',
      object: 'acct',
      records: [{ name: 'A', since: { dialect: 'cel', source: 'daysAgo(2)' } }],
      want: {
        chunk: [
          { index: 0, row: { name: 'A', since: '2026-03-13', created_at: NOW.toISOString(), updated_at: NOW.toISOString() }, lookups: [], stamped: true },
        ],
        problems: [],
        refused: 0,
      },
    },
    {
      name: 'an updated_at the record gives is its own, not stamped by the writer',
      object: 'acct',
      records: [{ name: 'A', updated_at: '2026-01-02T03:04:05Z' }],
      want: {
        chunk: [{ index: 0, row: { name: 'A', updated_at: '2026-01-02T03:04:05Z', created_at: NOW.toISOString() }, lookups: [] }],
        problems: [],
        refused: 0,
      },
    },
    {
      name: 'a value the column cannot hold refuses its record whole',
      object: 'acct',
      records: [{ name: 'A', revenue: [1, 2] }, { name: 'B' }],
      want: {
        chunk: [{ index: 1, row: { name: 'B', created_at: NOW.toISOString(), updated_at: NOW.toISOString() }, lookups: [], stamped: true }],
        problems: [{ index: 0, field: 'revenue', message: expect.stringMatching(/^row not written: /) }],
        refused: 1,
      },
    },
    {
      name: 'a list for a single-value lookup refuses its record (it was written with the field empty)',
      object: 'contact',
      records: [{ email: 'e', acct: ['Acme'] }],
      want: {
        chunk: [],
        problems: [
          {
            index: 0,
            field: 'acct',
            message: 'row not written: a list was given to the single-value lookup "acct"; write one natural-key string (or make the field multiple)',
          },
        ],
        refused: 1,
      },
    },
    {
      name: 'a list for a single-value select refuses its record (it was stored as the text ["a"])',
      object: 'acct',
      records: [{ name: 'A', stage: ['a'] }],
      want: {
        chunk: [],
        problems: [
          {
            index: 0,
            field: 'stage',
            message: 'row not written: a list was given to the single-value select "stage"; write one option value (or make the field multiple)',
          },
        ],
        refused: 1,
      },
    },
    {
      name: 'a list for a text field is its JSON text, as before',
      object: 'acct',
      records: [{ name: 'A', note: ['x'] }],
      want: {
        chunk: [{ index: 0, row: { name: 'A', note: '["x"]', created_at: NOW.toISOString(), updated_at: NOW.toISOString() }, lookups: [], stamped: true }],
        problems: [],
        refused: 0,
      },
    },
    {
      name: 'an unknown key is dropped and reported once',
      object: 'acct',
      records: [
        { name: 'A', nope: 1 },
        { name: 'B', nope: 2 },
      ],
      want: {
        chunk: [
          { index: 0, row: { name: 'A', created_at: NOW.toISOString(), updated_at: NOW.toISOString() }, lookups: [], stamped: true },
          { index: 1, row: { name: 'B', created_at: NOW.toISOString(), updated_at: NOW.toISOString() }, lookups: [], stamped: true },
        ],
        problems: [{ index: 0, field: 'nope', message: 'object "acct" has no field "nope"; the value was dropped (reported once per seed)', dropped: true }],
        refused: 0,
      },
    },
    {
      name: 'lookups become keys to resolve; an empty multiple lookup is an empty list',
      object: 'contact',
      records: [{ email: 'e', acct: 'Acme', accts: [] }],
      want: {
        chunk: [
          {
            index: 0,
            row: { email: 'e', accts: [], created_at: NOW.toISOString(), updated_at: NOW.toISOString() },
            lookups: [{ field: 'acct', target: 'acct', multiple: false, keys: ['Acme'] }],
            stamped: true,
          },
        ],
        problems: [],
        refused: 0,
      },
    },
  ])('$name', ({ object, records, want }) => {
    expect(prepare(object, records)).toEqual(want);
  });

  it('an unknown key reported in an earlier chunk is not reported again', () => {
    expect(prepare('acct', [{ name: 'A', nope: 1 }], new Set(['nope'])).problems).toEqual([]);
  });
});
