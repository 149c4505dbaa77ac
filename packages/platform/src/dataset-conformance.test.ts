import { buildGraph, collectStack, type DatasetNode } from '@bvl/metadata';
import type { DatasetSelection } from '@bvl/render-contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestPlatform } from '../test/test-platform.ts';
import type { Platform } from './open-platform.ts';
import { createDataEngine } from './run-data-engine.ts';
import { stageDrafts } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';

/*
 * Dataset semantics conformance: L2's compiled SQL, run on this engine (PGlite, and PostgreSQL when
 * DATABASE_URL is set), answers each operator and aggregate as ObjectStack's analytics does. Every
 * row cites the spec text or runtime code that states the behaviour (objectstack 5337ef162):
 *   filter.zod.ts  packages/spec/src/data/filter.zod.ts
 *   executor       packages/services/service-analytics/src/dataset-executor.ts
 *   compiler       packages/services/service-analytics/src/dataset-compiler.ts
 */

const item = {
  name: 'conf_item',
  fields: {
    name: { type: 'text' },
    stage: { type: 'select', options: ['open', 'won', 'lost'] },
    amount: { type: 'number' },
    due: { type: 'date' },
  },
};
const RECORDS = [
  { name: 'Acme Corp', stage: 'won', amount: 10, due: '2026-01-15' },
  { name: 'ACME corp', stage: 'won', amount: null, due: '2026-02-03' },
  { name: 'Café', stage: 'lost', amount: 5, due: '2026-02-20' },
  { name: 'beta', stage: 'open', amount: 7, due: null },
  { name: '50% off', stage: 'lost', amount: 3, due: '2026-01-02' },
];

let platform: Platform;
let tenant: string;
const made = useTestPlatform((p) => {
  platform = p;
});

beforeAll(async () => {
  tenant = made.next('conf');
  const scope = { tenant, package: 'conf' };
  await stageDrafts(platform, scope, collectStack({ objects: [item], data: [{ object: 'conf_item', externalId: 'name', records: RECORDS }] }, { draft: true }));
  const r = await publishPackage(platform, scope);
  if (r.outcome !== 'published') throw new Error(`not published: ${r.outcome}`);
});

/** Runs a dataset (over conf_item) with a selection; rows with dates as YYYY-MM-DD, sorted for comparison. */
async function run(dataset: Record<string, unknown>, selection?: DatasetSelection): Promise<Array<Record<string, unknown>>> {
  const { graph, issues } = buildGraph(
    collectStack({ objects: [item], datasets: [{ name: 'conf_ds', object: 'conf_item', dimensions: [], measures: [], ...dataset }] }),
  );
  expect(issues).toEqual([]);
  const r = await createDataEngine(platform, { tenant, graph }).queryDataset(graph.datasets.get('conf_ds') as DatasetNode, selection);
  if (!r.ok) throw new Error(r.error);
  const day = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return r.rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? day(v) : v])));
}

const count = { name: 'n', aggregate: 'count' };
/** How many rows of conf_item a filter keeps, through a dataset's count. */
const matching = async (filter: Record<string, unknown>) => (await run({ measures: [count] }, { measures: ['n'], filter }))[0]?.n;

describe('dataset filter operators (ObjectStack analytics FILTER_OPERATORS and LOGICAL_OPERATORS)', () => {
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, number]> = [
    ['$eq — filter.zod.ts "Equal to - SQL: ="', { stage: { $eq: 'won' } }, 2],
    ['a bare value is $eq', { stage: 'lost' }, 2],
    ['$ne — a NULL value is not equal to anything, so it is kept (null-safe)', { amount: { $ne: 5 } }, 4],
    ['$gt / $lte — filter.zod.ts ComparisonOperatorSchema; NULL is never ordered', { amount: { $gt: 3, $lte: 7 } }, 2],
    ['$in with null — membership, null meaning "is null"', { amount: { $in: [10, null] } }, 2],
    ['$nin — not in the list; NULL is not in it', { stage: { $nin: ['won', 'lost'] } }, 1],
    ['$between — filter.zod.ts "BETWEEN ? AND ?": inclusive at both ends', { amount: { $between: [3, 7] } }, 3],
    ['$contains — CASE-SENSITIVE (filter.zod.ts #5701, maintainer ruling 2026-08-06)', { name: { $contains: 'Acme' } }, 1],
    ['$startsWith — case-exact, so "a" does not match "Acme"', { name: { $startsWith: 'a' } }, 0],
    ['$endsWith — case-exact', { name: { $endsWith: 'corp' } }, 1],
    ['$notContains — the complement of $contains', { name: { $notContains: 'Acme' } }, 4],
    ['$contains — the comparand is literal: "%" and "_" are not wildcards', { name: { $contains: '0% ' } }, 1],
    ['$contains — "_" matches only an underscore', { name: { $contains: '_' } }, 0],
    ['$icontains — folds ASCII case (filter.zod.ts StringOperatorSchema)', { name: { $icontains: 'aCmE' } }, 2],
    ['$icontains — ASCII only: "CAFÉ" does not match "Café"', { name: { $icontains: 'CAFÉ' } }, 0],
    ['$null true — SQL IS NULL', { amount: { $null: true } }, 1],
    ['$exists false — the same question as {$eq: null}', { due: { $exists: false } }, 1],
    ['$and / $or — conjunction, disjunction', { $or: [{ stage: 'open' }, { $and: [{ stage: 'lost' }, { amount: { $gt: 4 } }] }] }, 2],
    ['$not — NULL-safe (filter.zod.ts #5146): a row whose column is NULL is returned', { $not: { amount: { $gt: 4 } } }, 2],
    ['$and [] — the AND identity: every row (filter.zod.ts #5322)', { $and: [] }, 5],
    ['$or [] — the OR identity: no row (filter.zod.ts #5322)', { $or: [] }, 0],
  ];
  it.each(cases)('%s', async (_, filter, expected) => expect(await matching(filter)).toBe(expected));
});

describe('dataset aggregates and derived measures (ObjectStack analytics executor)', () => {
  const byStage = { dimensions: [{ name: 'stage', field: 'stage' }] };
  const sorted = (rows: Array<Record<string, unknown>>) => [...rows].sort((a, b) => String(a.stage).localeCompare(String(b.stage)));
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>[], Array<Record<string, unknown>>]> = [
    [
      'count — rows per group',
      [count],
      [
        { stage: 'lost', n: 2 },
        { stage: 'open', n: 1 },
        { stage: 'won', n: 2 },
      ],
    ],
    [
      'count(field) — counts non-null values (#10411, .changeset/tidy-cubes-count-their-columns.md)',
      [{ name: 'c', aggregate: 'count', field: 'amount' }],
      [
        { stage: 'lost', c: 2 },
        { stage: 'open', c: 1 },
        { stage: 'won', c: 1 },
      ],
    ],
    [
      'count_distinct — distinct non-null values',
      [{ name: 'd', aggregate: 'count_distinct', field: 'name' }],
      [
        { stage: 'lost', d: 2 },
        { stage: 'open', d: 1 },
        { stage: 'won', d: 2 },
      ],
    ],
    [
      'sum — NULLs are skipped',
      [{ name: 's', aggregate: 'sum', field: 'amount' }],
      [
        { stage: 'lost', s: 8 },
        { stage: 'open', s: 7 },
        { stage: 'won', s: 10 },
      ],
    ],
    [
      'sum over a group its filter empties — 0, its identity (executor fillEmptyGroups, aggregation-policy emptyGroupValueFor)',
      [count, { name: 's', aggregate: 'sum', field: 'amount', filter: { name: { $contains: 'Acme' } } }],
      [
        { stage: 'lost', n: 2, s: 0 },
        { stage: 'open', n: 1, s: 0 },
        { stage: 'won', n: 2, s: 10 },
      ],
    ],
    [
      'count over a group its filter empties — 0',
      [count, { name: 'c', aggregate: 'count', filter: { stage: 'won' } }],
      [
        { stage: 'lost', n: 2, c: 0 },
        { stage: 'open', n: 1, c: 0 },
        { stage: 'won', n: 2, c: 2 },
      ],
    ],
    [
      'avg / min / max over no rows — null: there is nothing to measure (emptyGroupValueFor)',
      [
        count,
        { name: 'a', aggregate: 'avg', field: 'amount', filter: { stage: 'won' } },
        { name: 'lo', aggregate: 'min', field: 'amount', filter: { stage: 'won' } },
      ],
      [
        { stage: 'lost', n: 2, a: null, lo: null },
        { stage: 'open', n: 1, a: null, lo: null },
        { stage: 'won', n: 2, a: 10, lo: 10 },
      ],
    ],
    [
      // The groups come from the query over all rows, the unfiltered measures' (runMeasurePass); with
      // none, each filtered measure runs under its own filter and only groups it reaches show (measured
      // on @objectstack/service-analytics 17.4.0 by the oracle tier's engine authority).
      'only filtered measures — only the groups one of their filters reaches (executor runMeasurePass)',
      [
        { name: 'w', aggregate: 'count', filter: { stage: 'won' } },
        { name: 'o', aggregate: 'sum', field: 'amount', filter: { stage: 'open' } },
      ],
      [
        { stage: 'open', w: 0, o: 7 },
        { stage: 'won', w: 2, o: 0 },
      ],
    ],
    [
      'derived ratio over a filled 0 — 0, not null (executor: "a ratio over a filled 0 computes")',
      [{ name: 'won_sum', aggregate: 'sum', field: 'amount', filter: { stage: 'won' } }, count, { name: 'r', derived: { op: 'ratio', of: ['won_sum', 'n'] } }],
      [
        { stage: 'lost', won_sum: 0, n: 2, r: 0 },
        { stage: 'open', won_sum: 0, n: 1, r: 0 },
        { stage: 'won', won_sum: 10, n: 2, r: 5 },
      ],
    ],
    [
      'derived ratio by zero — null (executor computeDerived: "Division by zero … yields null")',
      [count, { name: 'none', aggregate: 'count', filter: { stage: 'nothing' } }, { name: 'r', derived: { op: 'ratio', of: ['n', 'none'] } }],
      [
        { stage: 'lost', n: 2, none: 0, r: null },
        { stage: 'open', n: 1, none: 0, r: null },
        { stage: 'won', n: 2, none: 0, r: null },
      ],
    ],
    [
      'derived difference over a null operand — null (computeDerived: a missing operand is unknowable)',
      [count, { name: 'hi', aggregate: 'max', field: 'amount' }, { name: 'd', derived: { op: 'difference', of: ['hi', 'n'] } }],
      [
        { stage: 'lost', n: 2, hi: 5, d: 3 },
        { stage: 'open', n: 1, hi: 7, d: 6 },
        { stage: 'won', n: 2, hi: 10, d: 8 },
      ],
    ],
  ];
  it.each(cases)('%s', async (_, measures, expected) => expect(sorted(await run({ ...byStage, measures }))).toEqual(expected));
});

describe('dataset dimensions and selections (ObjectStack analytics compiler and executor)', () => {
  const dims = [
    { name: 'month', field: 'due', type: 'date', dateGranularity: 'month' },
    { name: 'raw', field: 'due', dateGranularity: 'month' },
  ];
  it('dateGranularity buckets a date-typed dimension (compiler: only `type: date` dimensions get granularities)', async () => {
    const rows = await run({ dimensions: dims, measures: [count] }, { dimensions: ['month'], measures: ['n'] });
    expect(rows).toEqual([
      { month: '2026-01-01', n: 2 },
      { month: '2026-02-01', n: 2 },
      { month: null, n: 1 },
    ]);
  });
  it('dateGranularity on a dimension that is not typed date is ignored: it groups by the raw value', async () => {
    const rows = await run({ dimensions: dims, measures: [count] }, { dimensions: ['raw'], measures: ['n'] });
    expect(rows.map((r) => r.raw)).toEqual(['2026-01-02', '2026-01-15', '2026-02-03', '2026-02-20', null]);
  });
  it("a selection's dateGranularity wins over the dimension's own (executor resolveDimensionGranularity)", async () => {
    const rows = await run({ dimensions: dims, measures: [count] }, { dimensions: ['month'], measures: ['n'], dateGranularity: 'year' });
    expect(rows).toEqual([
      { month: '2026-01-01', n: 4 },
      { month: null, n: 1 },
    ]);
  });
  it('an order orders by the selected measure (executor resolveOrdering: an explicit order wins)', async () => {
    const rows = await run(
      { dimensions: [{ name: 'stage', field: 'stage' }], measures: [{ name: 's', aggregate: 'sum', field: 'amount' }] },
      { dimensions: ['stage'], measures: ['s'], order: { s: 'desc' } },
    );
    expect(rows.map((r) => r.stage)).toEqual(['won', 'lost', 'open']);
  });
});
