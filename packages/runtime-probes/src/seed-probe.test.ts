import type { SeedNode } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { graphOf } from '../test/graphs.ts';
import { expectedRows, judgeDroppedValues, judgeSeed, type SeedApplyReport, type SeedProbe } from './seed-probe.ts';

const seedOf = (seed: Record<string, unknown>): SeedNode =>
  graphOf({ objects: [{ name: 'o', fields: { name: { type: 'text' }, a: { type: 'text' }, b: { type: 'text' } } }], data: [seed] }).seeds.get('o')!;

describe('expectedRows', () => {
  const table: Array<[string, Record<string, unknown>, number]> = [
    ['one row per distinct key', { object: 'o', records: [{ name: 'x' }, { name: 'y' }, { name: 'x' }] }, 2],
    ['a record without its key is its own row', { object: 'o', records: [{ name: 'x' }, {}, {}] }, 3],
    [
      'composite keys',
      {
        object: 'o',
        externalId: ['a', 'b'],
        records: [
          { a: 1, b: 1 },
          { a: 1, b: 2 },
          { a: 1, b: 1 },
        ],
      },
      2,
    ],
    ["every record under 'insert'", { object: 'o', mode: 'insert', records: [{ name: 'x' }, { name: 'x' }] }, 2],
  ];
  it.each(table)('%s', (_label, seed, n) => expect(expectedRows(seedOf(seed))).toBe(n));
});

describe('judgeSeed', () => {
  const probe: SeedProbe = { seed: seedOf({ object: 'o', records: [{ name: 'x' }, { name: 'y' }, { name: 'z' }] }), expected: 3 };
  const report: SeedApplyReport = {
    errors: [
      { seed: 'o', object: 'o', recordIndex: 1, field: 'a', message: 'row not written: invalid input syntax for type numeric: "abc"' },
      { seed: 'other', object: 'x', recordIndex: 0, message: 'unrelated' },
    ],
  };
  it('passes when the object has at least the seeded rows', () => expect(judgeSeed(probe, { ok: true, value: 4 }, report)).toBeUndefined());
  it('no rows: seed_not_applied, quoting the publish report for this seed only', () => {
    const issue = judgeSeed(probe, { ok: true, value: 0 }, report)!;
    expect(issue).toMatchObject({
      layer: 'runtime',
      severity: 'error',
      code: 'seed_not_applied',
      artifact: { type: 'seed', name: 'o' },
      ref: { type: 'object', name: 'o' },
    });
    expect(issue.message).toBe(
      'Seed "o" has 3 records for object "o", but the object has no rows after publish. The publish reported: record 1 (field "a"): row not written: invalid input syntax for type numeric: "abc".',
    );
    expect(issue.fix).toMatch(/Correct the failing records of seed "o"/);
  });
  it('fewer rows: row_count_mismatch', () =>
    expect(judgeSeed(probe, { ok: true, value: 2 }, report)).toMatchObject({
      code: 'row_count_mismatch',
      message: expect.stringMatching(/has 2 rows after publish, fewer than the 3 records of seed "o"/),
    }));
  it('says when the publish reported nothing for the seed', () =>
    expect(judgeSeed(probe, { ok: true, value: 0 }, { errors: [] })?.message).toMatch(/reported no record error/));
  it('a failed count is seed_not_applied with the database error', () =>
    expect(judgeSeed(probe, { ok: false, error: 'relation "t_x.o" does not exist' }, undefined)).toMatchObject({
      code: 'seed_not_applied',
      message: expect.stringMatching(/counting the rows of object "o" failed: relation "t_x.o" does not exist/),
    }));
});

describe('judgeDroppedValues', () => {
  const probe: SeedProbe = { seed: seedOf({ object: 'o', records: [{ name: 'x' }, { name: 'y' }, { name: 'z' }, { name: 'w' }] }), expected: 4 };
  const lookup = 'lookup value "ada" matches no "sys_user" row by name (nor by id); the field was left empty';
  const table: Array<[string, SeedApplyReport, Array<[string, string, string]>]> = [
    ['no error: nothing', { errors: [] }, []],
    [
      "a failed record is the count probe's, not a dropped value",
      { errors: [{ seed: 'o', object: 'o', recordIndex: 1, field: 'a', message: 'row not written: x' }] },
      [],
    ],
    [
      'rows written without a value: one issue per seed and field, at the first record',
      {
        errors: [
          { seed: 'o', object: 'o', recordIndex: 2, field: 'a', message: lookup, dropped: true },
          { seed: 'o', object: 'o', recordIndex: 0, field: 'a', message: lookup, dropped: true },
          { seed: 'o', object: 'o', recordIndex: 3, field: 'b', message: 'object "o" has no field "b"; the value was dropped', dropped: true },
          { seed: 'other', object: 'x', recordIndex: 0, field: 'a', message: lookup, dropped: true },
        ],
      },
      [
        ['/records/0/a', 'records 0, 2', 'a'],
        ['/records/3/b', 'record 3', 'b'],
      ],
    ],
    [
      'a dropped value on a record that then failed whole is not reported twice',
      {
        errors: [
          { seed: 'o', object: 'o', recordIndex: 1, field: 'a', message: lookup, dropped: true },
          { seed: 'o', object: 'o', recordIndex: 1, field: 'b', message: 'row not written: too long' },
        ],
      },
      [],
    ],
  ];
  it.each(table)('%s', (_label, report, want) => {
    const issues = judgeDroppedValues([probe], report);
    expect(issues.map((i) => [i.path, i.code, i.severity, i.layer, i.ref?.member])).toEqual(
      want.map(([path, , field]) => [path, 'seed_value_dropped', 'error', 'runtime', field]),
    );
    for (const [i, [, records]] of want.entries()) expect(issues[i]!.message).toContain(`wrote ${records} of object "o"`);
  });
  it("quotes the publish's reason", () =>
    expect(judgeDroppedValues([probe], { errors: [{ seed: 'o', object: 'o', recordIndex: 0, field: 'a', message: lookup, dropped: true }] })[0]!.message).toBe(
      `Seed "o" wrote record 0 of object "o" without its "a" value: ${lookup}.`,
    ));
});
