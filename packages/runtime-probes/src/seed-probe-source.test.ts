import type { Graph, SeedNode } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { fakeEngine } from '../test/fake-engine.ts';
import { graphOf } from '../test/graphs.ts';
import { runProbes } from './run-probes.ts';
import { expectedRows, expectedRowsOf, type SeedRecordSource } from './seed-probe.ts';

// Issue 21: the rows a seed must leave, counted over its records read part by part (a stored seed),
// are those counted over the records held whole.
const FIELDS = { name: { type: 'text' }, a: { type: 'text' }, b: { type: 'number' } };
const graphWith = (seed: Record<string, unknown>): Graph => graphOf({ objects: [{ name: 'o', fields: FIELDS }], data: [seed] });
const seedOf = (seed: Record<string, unknown>): SeedNode => graphWith(seed).seeds.get('o')!;

const partsOf = (records: readonly Record<string, unknown>[], part: number): SeedRecordSource =>
  async function* () {
    for (let i = 0; i < records.length; i += part) yield records.slice(i, i + part);
  };

/** The seed as stored: its records empty, read through a source. */
const stored = (seed: SeedNode): SeedNode => ({ ...seed, def: { ...seed.def, records: [] }, stored: { handle: seed.name } });

describe('expectedRowsOf', () => {
  const many = Array.from({ length: 3_000 }, (_, i) => ({
    name: i % 7 === 0 ? undefined : i % 3 === 0 ? `k${i % 1_000}` : i % 1_000,
    a: `a${i % 11}`,
    b: i % 13 === 0 ? null : i % 5,
  }));
  const seeds: Array<[string, Record<string, unknown>]> = [
    ['repeated keys', { object: 'o', records: [{ name: 'x' }, { name: 'y' }, { name: 'x' }] }],
    ['records without their key', { object: 'o', records: [{ name: 'x' }, {}, { name: null }, {}] }],
    ['a number and its text are two keys (as held)', { object: 'o', records: [{ name: 1 }, { name: '1' }, { name: 1 }] }],
    ['many, single key', { object: 'o', records: many }],
    ['many, composite key', { object: 'o', externalId: ['a', 'b'], records: many }],
    ['insert counts records', { object: 'o', mode: 'insert', records: many }],
    ['empty', { object: 'o', records: [] }],
  ];
  for (const [label, def] of seeds)
    it(`${label}: the count over records held whole, at parts of 1, 2, 5 and 5,000`, async () => {
      const seed = seedOf(def);
      const held = expectedRows(seed);
      if (label.startsWith('many')) expect(held).toBeGreaterThan(100);
      for (const part of [1, 2, 5, 5_000]) expect(await expectedRowsOf(stored(seed), partsOf(seed.def.records, part)), `parts of ${part}`).toBe(held);
    });
  // A source honouring the projection the count asks for (the platform's cursor sends those fields only).
  const projecting = (records: readonly Record<string, unknown>[], asked: Array<readonly string[] | undefined>): SeedRecordSource =>
    async function* (fields?: readonly string[]) {
      asked.push(fields);
      const pick = (r: Record<string, unknown>) => (fields ? Object.fromEntries(fields.filter((f) => Object.hasOwn(r, f)).map((f) => [f, r[f]])) : r);
      for (let i = 0; i < records.length; i += 7) yield records.slice(i, i + 7).map(pick);
    };
  for (const [label, def] of seeds)
    it(`${label}: the same count over records of the natural key's fields only`, async () => {
      const seed = seedOf(def);
      const asked: Array<readonly string[] | undefined> = [];
      expect(await expectedRowsOf(stored(seed), projecting(seed.def.records, asked))).toBe(expectedRows(seed));
      if (seed.mode !== 'insert') expect(asked).toEqual([seed.externalId]);
    });
});

describe('runProbes over stored seeds', () => {
  const def = { object: 'o', records: [{ name: 'x' }, { name: 'y' }, { name: 'x' }, { name: 'z' }] };
  const held = graphWith(def);
  const seed = held.seeds.get('o')!;
  const storedGraph: Graph = { ...held, seeds: new Map([['o', stored(seed)]]) };
  it('judges a stored seed by its records read from the source, as the held seed', async () => {
    for (const rows of [0, 2, 3]) {
      const engine = () => fakeEngine({ rows: { o: rows } });
      const whole = await runProbes({ engine: engine(), graph: held });
      const parts = await runProbes({
        engine: engine(),
        graph: storedGraph,
        seedRecords: (s) => (s.stored ? partsOf(def.records, 1) : undefined),
      });
      expect(parts, `${rows} rows`).toEqual(whole);
    }
    // Without its source a stored seed counts no records: it would pass unjudged.
    expect((await runProbes({ engine: fakeEngine({ rows: { o: 2 } }), graph: storedGraph })).issues).toEqual([]);
    expect((await runProbes({ engine: fakeEngine({ rows: { o: 2 } }), graph: held })).issues.map((i) => i.code)).toEqual(['row_count_mismatch']);
  });
  it('skips a stored seed whose records cannot be read, saying why', async () => {
    const report = await runProbes({
      engine: fakeEngine({ rows: { o: 3 } }),
      graph: storedGraph,
      seedRecords: () =>
        async function* () {
          yield [{ name: 'x' }];
          throw new Error('the stored seed went away');
        },
    });
    expect(report.skipped).toContainEqual({
      plane: 'seeds',
      artifact: { type: 'seed', name: 'o' },
      reason: 'its stored records could not be read: the stored seed went away',
    });
    expect(report.issues).toEqual([]);
  });
  it('skips a stored seed whose source ends short or runs long (gone or changed since the publish), not expecting fewer rows', async () => {
    for (const [records, said] of [
      [def.records.slice(0, 2), 'gave 2 of the 4'],
      [[], 'gave 0 of the 4'],
      [[...def.records, { name: 'w' }], 'gave 5 of the 4'],
    ] as const) {
      const report = await runProbes({ engine: fakeEngine({ rows: { o: 2 } }), graph: storedGraph, seedRecords: () => partsOf(records, 2) });
      expect(report.skipped).toContainEqual({
        plane: 'seeds',
        artifact: { type: 'seed', name: 'o' },
        reason: `its stored records could not be read: seed "o": its stored records ${said} records it has (they went or changed since the publish)`,
      });
      expect(report.issues).toEqual([]);
    }
  });
});
