import { BuildIssueSchema } from '@bvl/build-issue';
import { buildGraph, collectStack, type DatasetNode, type Graph } from '@bvl/metadata';
import { CORPUS_NAMES, FIXTURE_NAMES, propertyRuns } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusGraph, fixtureGraph } from '../test/corpora.ts';
import { type CompileResult, compileDataset } from './compile-dataset.ts';
import type { CompiledDataset, DatasetSelection } from './dataset-plan.ts';
import { DATE_MACRO_NAMES } from './date-macro-sql.ts';

const objects = [
  {
    name: 'crm_account',
    fields: {
      name: { type: 'text' },
      industry: { type: 'select', options: ['tech', 'retail'] },
      owner: { type: 'user' },
      parent: { type: 'lookup', reference: 'crm_account' },
      tags: { type: 'lookup', reference: 'crm_tag', multiple: true },
      region: { type: 'lookup', reference: 'crm_region' },
    },
  },
  { name: 'crm_tag', fields: { name: { type: 'text' } } },
  { name: 'crm_ledger', datasource: 'warehouse', fields: { name: { type: 'text' } } },
  {
    name: 'crm_opp',
    fields: {
      name: { type: 'text' },
      amount: { type: 'currency' },
      stage: { type: 'select', options: ['open', 'won', 'lost'] },
      close_date: { type: 'date' },
      closed_at: { type: 'datetime' },
      at_time: { type: 'time' },
      account: { type: 'lookup', reference: 'crm_account' },
      labels: { type: 'lookup', reference: 'crm_tag', multiple: true },
      probability: { type: 'percent' },
      ledger: { type: 'lookup', reference: 'crm_ledger' },
    },
  },
];

const base = {
  name: 'opp_metrics',
  object: 'crm_opp',
  dimensions: [{ name: 'stage', field: 'stage' }],
  measures: [{ name: 'n', aggregate: 'count' }],
};

function datasetGraph(dataset: Record<string, unknown>): { graph: Graph; dataset: DatasetNode } {
  const { graph, issues } = buildGraph(collectStack({ objects, datasets: [{ ...base, ...dataset }] }));
  expect(issues).toEqual([]);
  return { graph, dataset: graph.datasets.get(base.name) as DatasetNode };
}

function compile(dataset: Record<string, unknown>, selection?: DatasetSelection, options?: { schema?: string }): CompileResult {
  const d = datasetGraph(dataset);
  return compileDataset(d.dataset, d.graph, selection, options);
}

function ok(result: CompileResult): CompiledDataset {
  if (!result.ok) throw new Error(`expected a compiled query, got: ${result.issues.map((i) => i.message).join(' | ')}`);
  return result.compiled;
}

/** SQL and params in one value, for readable snapshots. */
const shown = (c: CompiledDataset) => ({ sql: c.sql, params: c.params });

/** Every dataset compiles whole, and every widget's selection compiles (snapshots of SQL and params). */
function compilesEverything(label: string, graph: Graph): void {
  it.each([...graph.datasets.keys()])(`${label}: dataset %s compiles (all dimensions and measures)`, (name) => {
    const result = compileDataset(graph.datasets.get(name) as DatasetNode, graph, undefined, { schema: 'tenant_1' });
    expect(ok(result)).toMatchSnapshot();
  });
  it(`${label}: every widget's selection compiles`, () => {
    const out: Record<string, unknown> = {};
    for (const dashboard of graph.dashboards.values()) {
      for (const w of dashboard.widgets) {
        const dataset = graph.datasets.get(w.def.dataset ?? '') as DatasetNode;
        const selection = { measures: w.def.values ?? [], dimensions: w.def.dimensions ?? [], ...(w.def.filter ? { filter: w.def.filter } : {}) };
        out[`${dashboard.name}.${w.id}`] = shown(ok(compileDataset(dataset, graph, selection)));
      }
    }
    expect(out).toMatchSnapshot();
  });
}

describe('compileDataset on the fixtures', () => {
  for (const name of FIXTURE_NAMES) compilesEverything(name, fixtureGraph(name));
});

describeCorpora('compileDataset on the corpora', () => {
  for (const corpus of CORPUS_NAMES) compilesEverything(corpus, corpusGraph(corpus));
});

describe('compileDataset: query shape', () => {
  it('defaults to every dimension and measure; columns name them in order', () => {
    const c = ok(
      compile({
        dimensions: [
          { name: 'stage', field: 'stage' },
          { name: 'month', field: 'close_date', type: 'date', dateGranularity: 'month' },
        ],
        measures: [
          { name: 'n', aggregate: 'count' },
          { name: 'total', aggregate: 'sum', field: 'amount' },
        ],
      }),
    );
    expect(c.columns).toEqual([
      { name: 'stage', kind: 'dimension' },
      { name: 'month', kind: 'dimension' },
      { name: 'n', kind: 'measure' },
      { name: 'total', kind: 'measure' },
    ]);
    expect(shown(c)).toMatchInlineSnapshot(`
      {
        "params": [],
        "sql": "select "crm_opp"."stage" as "stage", date_trunc('month', "crm_opp"."close_date") as "month", (count(*))::int as "n", (coalesce(sum("crm_opp"."amount"), 0))::float8 as "total" from "crm_opp" as "crm_opp" group by "crm_opp"."stage", date_trunc('month', "crm_opp"."close_date") order by "stage"",
      }
    `);
  });

  it('a selection picks (and dedupes) names; no dimension means no GROUP BY; LIMIT is a parameter', () => {
    const c = ok(
      compile(
        {
          measures: [
            { name: 'n', aggregate: 'count' },
            { name: 'total', aggregate: 'sum', field: 'amount' },
          ],
        },
        { measures: ['total', 'total'], dimensions: [], limit: 10 },
      ),
    );
    expect(c.columns).toEqual([{ name: 'total', kind: 'measure' }]);
    expect(shown(c)).toMatchInlineSnapshot(`
      {
        "params": [
          10,
        ],
        "sql": "select (coalesce(sum("crm_opp"."amount"), 0))::float8 as "total" from "crm_opp" as "crm_opp" limit $1",
      }
    `);
  });

  it('includes join to-one lookups, one alias per path, schema-qualified', () => {
    const c = ok(
      compile(
        {
          include: ['account.owner', 'account.parent'],
          dimensions: [
            { name: 'industry', field: 'account.industry' },
            { name: 'owner_name', field: 'account.owner.name' },
            { name: 'parent_name', field: 'account.parent.name' },
          ],
        },
        undefined,
        { schema: 'tenant_1' },
      ),
    );
    expect(shown(c)).toMatchInlineSnapshot(`
      {
        "params": [],
        "sql": "select "account"."industry" as "industry", "account__owner"."name" as "owner_name", "account__parent"."name" as "parent_name", (count(*))::int as "n" from "tenant_1"."crm_opp" as "crm_opp" left join "tenant_1"."crm_account" as "account" on "account"."id" = "crm_opp"."account" left join "tenant_1"."sys_user" as "account__owner" on "account__owner"."id" = "account"."owner" left join "tenant_1"."crm_account" as "account__parent" on "account__parent"."id" = "account"."parent" group by "account"."industry", "account__owner"."name", "account__parent"."name" order by "industry"",
      }
    `);
  });

  it('measures: count(*) vs count(field) (#29), count_distinct, avg, min/max casts, measure filter, derived recursion', () => {
    const c = ok(
      compile({
        measures: [
          { name: 'n', aggregate: 'count' },
          { name: 'with_amount', aggregate: 'count', field: 'amount' },
          { name: 'accounts', aggregate: 'count_distinct', field: 'account' },
          { name: 'avg_amount', aggregate: 'avg', field: 'amount' },
          { name: 'max_amount', aggregate: 'max', field: 'amount' },
          { name: 'first_close', aggregate: 'min', field: 'close_date' },
          { name: 'won', aggregate: 'count', filter: { stage: 'won' } },
          { name: 'won_rate', derived: { op: 'ratio', of: ['won', 'n'] } },
          { name: 'lost_rate', derived: { op: 'difference', of: ['one', 'won_rate'] } },
          { name: 'one', derived: { op: 'ratio', of: ['n', 'n'] } },
          { name: 'score', derived: { op: 'product', of: ['won_rate', 'avg_amount'] } },
          { name: 'both', derived: { op: 'sum', of: ['won', 'n'] } },
        ],
      }),
    );
    expect(shown(c)).toMatchInlineSnapshot(`
      {
        "params": [
          "won",
          "won",
          "won",
          "won",
          "won",
        ],
        "sql": "select "crm_opp"."stage" as "stage", (count(*))::int as "n", (count("crm_opp"."amount"))::int as "with_amount", (count(distinct "crm_opp"."account"))::int as "accounts", (avg("crm_opp"."amount"))::float8 as "avg_amount", (max("crm_opp"."amount"))::float8 as "max_amount", min("crm_opp"."close_date") as "first_close", (count(*) filter (where "crm_opp"."stage" = $1))::int as "won", (((count(*) filter (where "crm_opp"."stage" = $2))::int)::float8 / nullif(((count(*))::int)::float8, 0)) as "won_rate", (((((count(*))::int)::float8 / nullif(((count(*))::int)::float8, 0)))::float8 - ((((count(*) filter (where "crm_opp"."stage" = $3))::int)::float8 / nullif(((count(*))::int)::float8, 0)))::float8) as "lost_rate", (((count(*))::int)::float8 / nullif(((count(*))::int)::float8, 0)) as "one", (((((count(*) filter (where "crm_opp"."stage" = $4))::int)::float8 / nullif(((count(*))::int)::float8, 0)))::float8 * ((avg("crm_opp"."amount"))::float8)::float8) as "score", (((count(*) filter (where "crm_opp"."stage" = $5))::int)::float8 + ((count(*))::int)::float8) as "both" from "crm_opp" as "crm_opp" group by "crm_opp"."stage" order by "stage"",
      }
    `);
  });
});

describe('compileDataset: ObjectStack analytics semantics of a selection', () => {
  const dataset = {
    dimensions: [
      { name: 'month', field: 'close_date', type: 'date', dateGranularity: 'month' },
      { name: 'day', field: 'close_date' },
      { name: 'stage', field: 'stage', dateGranularity: 'year' },
    ],
    measures: [
      { name: 'n', aggregate: 'count' },
      { name: 'total', aggregate: 'sum', field: 'amount' },
    ],
  };
  it("buckets date-typed dimensions by the selection's granularity over their own; other dimensions group raw", () => {
    const c = ok(compile(dataset, { dimensions: ['month', 'day', 'stage'], measures: ['n'], dateGranularity: 'week' }));
    expect(c.sql).toContain(`date_trunc('week', "crm_opp"."close_date") as "month"`);
    expect(c.sql).toContain(`"crm_opp"."close_date" as "day"`);
    expect(c.sql).toContain(`"crm_opp"."stage" as "stage"`);
  });
  it('orders by the selected names asked for, in order; any other order key is refused', () => {
    const c = ok(compile(dataset, { dimensions: ['stage'], measures: ['n', 'total'], order: { total: 'desc', stage: 'asc' } }));
    expect(c.sql).toMatch(/order by "total" desc, "stage" asc$/);
    const bad = compile(dataset, { dimensions: ['stage'], measures: ['n'], order: { total: 'desc' } });
    expect(bad.ok ? [] : bad.issues.map((i) => i.message)).toEqual([
      'The selection orders dataset "opp_metrics" by "total" "desc", but only a selected dimension or measure can order it, asc or desc (selected: stage, n).',
    ]);
  });
  it('shows only the groups a measure filter admits when every computed measure carries one (ObjectStack runs each filtered measure under its filter)', () => {
    const scoped = {
      measures: [
        { name: 'n', aggregate: 'count' },
        { name: 'won', aggregate: 'count', filter: { stage: 'won' } },
        { name: 'lost', aggregate: 'count', filter: { stage: 'lost' } },
        { name: 'won_share', derived: { op: 'ratio', of: ['won', 'n'] } },
        { name: 'won_or_lost', derived: { op: 'sum', of: ['won', 'lost'] } },
      ],
    };
    const one = ok(compile(scoped, { dimensions: ['stage'], measures: ['won'] }));
    expect(one.sql).toMatch(/from "crm_opp" as "crm_opp" where "crm_opp"."stage" = \$\d+ group by/);
    const two = ok(compile(scoped, { dimensions: ['stage'], measures: ['won_or_lost'] }));
    expect(two.sql).toMatch(/where \("crm_opp"."stage" = \$\d+ or "crm_opp"."stage" = \$\d+\) group by/);
    // An unfiltered measure among them (directly or under a derived one): every group shows.
    expect(ok(compile(scoped, { dimensions: ['stage'], measures: ['won', 'n'] })).sql).not.toContain(' where ');
    expect(ok(compile(scoped, { dimensions: ['stage'], measures: ['won_share'] })).sql).not.toContain(' where ');
  });
});

describe('compileDataset: filters', () => {
  const where = (filter: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const c = ok(compile({ ...extra, measures: [{ name: 'n', aggregate: 'count' }], dimensions: [] }, { filter }));
    return { where: c.sql.replace(/^.* where /, ''), params: c.params };
  };

  it('equality, null, inequality (null-safe), ordering', () => {
    expect(where({ stage: 'won', account: null, name: { $ne: 'x' }, amount: { $gt: 1, $lte: 9 } })).toMatchInlineSnapshot(`
      {
        "params": [
          "won",
          "x",
          1,
          9,
        ],
        "where": "("crm_opp"."stage" = $1 and "crm_opp"."account" is null and "crm_opp"."name" is distinct from $2 and ("crm_opp"."amount" > $3 and "crm_opp"."amount" <= $4))",
      }
    `);
  });

  it('$in / $nin (with null), $between, bare array = $in', () => {
    expect(where({ stage: { $in: ['won', null] }, name: { $nin: ['a', 'b'] }, amount: { $between: [1, 2] }, account: ['x', 'y'] })).toMatchInlineSnapshot(`
      {
        "params": [
          "won",
          "a",
          "b",
          1,
          2,
          "x",
          "y",
        ],
        "where": "(("crm_opp"."stage" in ($1) or "crm_opp"."stage" is null) and not coalesce("crm_opp"."name" in ($2, $3), false) and ("crm_opp"."amount" >= $4 and "crm_opp"."amount" <= $5) and "crm_opp"."account" in ($6, $7))",
      }
    `);
  });

  it('empty $in matches nothing, empty $nin everything', () => {
    expect(where({ stage: { $in: [] }, name: { $nin: [] } })).toMatchInlineSnapshot(`
      {
        "params": [],
        "where": "(false and not coalesce(false, false))",
      }
    `);
  });

  it('$contains/$startsWith/$endsWith are case-exact LIKE with the metacharacters escaped; $icontains folds ASCII case on both sides', () => {
    expect(
      where({ name: { $contains: '50%_off\\', $startsWith: 'a', $endsWith: 'z', $notContains: 'q' }, stage: { $icontains: 'WoN_É' } }),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "%50\\%\\_off\\\\%",
          "a%",
          "%z",
          "%q%",
          "%won\\_É%",
        ],
        "where": "(("crm_opp"."name"::text like $1 and "crm_opp"."name"::text like $2 and "crm_opp"."name"::text like $3 and not coalesce("crm_opp"."name"::text like $4, false)) and translate("crm_opp"."stage"::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') like $5)",
      }
    `);
  });

  it('$exists / $null, $and/$or/$not at the top (a NULL row is in the complement of a negation)', () => {
    expect(
      where({
        amount: { $exists: true },
        close_date: { $null: true },
        $or: [{ stage: 'won' }, { $and: [{ stage: 'lost' }, { amount: { $gt: 5 } }] }],
        $not: { name: 'z' },
      }),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "won",
          "lost",
          5,
          "z",
        ],
        "where": "("crm_opp"."amount" is not null and "crm_opp"."close_date" is null and ("crm_opp"."stage" = $1 or ("crm_opp"."stage" = $2 and "crm_opp"."amount" > $3)) and not coalesce("crm_opp"."name" = $4, false))",
      }
    `);
  });

  it("operators outside ObjectStack's analytics vocabulary are refused, with the spelling that works", () => {
    const problems = (filter: Record<string, unknown>) => {
      const r = compile({ measures: [{ name: 'n', aggregate: 'count' }], dimensions: [] }, { filter });
      return r.ok ? [] : r.issues.map((i) => [i.message.replace(/^.* (uses|negates)/, '$1'), i.suggestions ?? []]);
    };
    expect(problems({ $nor: [{ stage: 'open' }] })).toEqual([
      ['uses "$nor", which ObjectStack\'s filter language does not have (logical operators: $and, $or, $not).', ['$not', '$or']],
    ]);
    expect(problems({ name: { $not: { $contains: 'x' } } })[0]?.[0]).toMatch(/^negates a field operator/);
    expect(problems({ name: { $like: 'w%' }, stage: { $ilike: 'W%' } }).map((p) => p[1])).toEqual([['$contains', '$startsWith', '$endsWith'], ['$icontains']]);
  });

  it('multiple lookups compare as arrays (an undefined key, from a JS caller, is absent)', () => {
    expect(where({ labels: 'tag1', labels_note: undefined })).toMatchInlineSnapshot(`
      {
        "params": [
          "tag1",
        ],
        "where": "$1 = any("crm_opp"."labels")",
      }
    `);
  });

  it('multiple lookups: $in overlaps, $contains is membership', () => {
    expect(where({ labels: { $in: ['a', 'b'], $contains: 'c' } })).toMatchInlineSnapshot(`
      {
        "params": [
          "a",
          "b",
          "c",
        ],
        "where": "("crm_opp"."labels" && array[$1, $2]::text[] and $3 = any("crm_opp"."labels"))",
      }
    `);
  });

  it('a dotted key filters on an included relationship', () => {
    expect(where({ 'account.industry': 'tech' }, { include: ['account'] })).toMatchInlineSnapshot(`
      {
        "params": [
          "tech",
        ],
        "where": ""account"."industry" = $1",
      }
    `);
  });

  it('{$field} compares two columns of the row', () => {
    expect(where({ closed_at: { $gte: { $field: 'close_date' } } })).toMatchInlineSnapshot(`
      {
        "params": [],
        "where": ""crm_opp"."closed_at" >= "crm_opp"."close_date"",
      }
    `);
  });

  it('date macros resolve on the database clock, never to a JS date', () => {
    const w = where({
      close_date: { $gte: '{current_week_start}', $lt: '{next_month_start}', $lte: '{current_year_end}' },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: `${N_…}` is the format's own placeholder spelling, not a JS template.
      closed_at: { $gte: '{4_weeks_ago}', $lte: '{today}', $lt: '${2_hours_from_now}', $ne: '{now}' },
      name: { $gte: '{yesterday}' },
    });
    expect(w).toMatchInlineSnapshot(`
      {
        "params": [
          4,
          2,
        ],
        "where": "(("crm_opp"."close_date" >= (date_trunc('week', current_date::timestamp))::date and "crm_opp"."close_date" < ((date_trunc('month', current_date::timestamp) + 1 * interval '1 month'))::date and "crm_opp"."close_date" <= ((date_trunc('year', current_date::timestamp) + 1 * interval '1 year') - interval '1 day')::date) and ("crm_opp"."closed_at" >= (current_date - 7 * $1::int) and "crm_opp"."closed_at" < (current_date)::date + 1 and "crm_opp"."closed_at" < (now() + make_interval(hours => $2::int)) and "crm_opp"."closed_at" is distinct from now()) and "crm_opp"."name" >= ((current_date - 1))::text)",
      }
    `);
    expect(JSON.stringify(w)).not.toMatch(/20\d\d-\d\d-\d\d/);
  });

  it('a bare calendar day as an upper bound covers the whole day on a datetime column', () => {
    expect(where({ closed_at: { $lte: '2026-03-31' }, close_date: { $lte: '2026-03-31' } })).toMatchInlineSnapshot(`
      {
        "params": [
          "2026-03-31",
          "2026-03-31",
        ],
        "where": "("crm_opp"."closed_at" < ($1)::date + 1 and "crm_opp"."close_date" <= $2)",
      }
    `);
  });

  it('every fixed date macro compiles', () => {
    for (const name of DATE_MACRO_NAMES) expect(compile({}, { filter: { close_date: { $gte: `{${name}}` } } }).ok, name).toBe(true);
  });

  it('context tokens read a session setting', () => {
    expect(where({ account: '{current_user_id}' })).toMatchInlineSnapshot(`
      {
        "params": [],
        "where": ""crm_opp"."account" = current_setting('bvl.current_user_id', true)",
      }
    `);
  });

  it('the dataset filter and the selection filter are both applied', () => {
    const c = ok(
      compile({ filter: { stage: { $ne: 'lost' } }, measures: [{ name: 'n', aggregate: 'count' }], dimensions: [] }, { filter: { amount: { $gt: 0 } } }),
    );
    expect(shown(c)).toMatchInlineSnapshot(`
      {
        "params": [
          "lost",
          0,
        ],
        "sql": "select (count(*))::int as "n" from "crm_opp" as "crm_opp" where "crm_opp"."stage" is distinct from $1 and "crm_opp"."amount" > $2",
      }
    `);
  });

  it('values are always parameters, never SQL text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.constantFrom('$eq', '$ne', '$gt', '$contains', '$startsWith', '$icontains'), (value, op) => {
        fc.pre(!/^\$?\{[A-Za-z0-9_]+\}$/.test(value));
        const c = ok(compile({ measures: [{ name: 'n', aggregate: 'count' }], dimensions: [] }, { filter: { name: { [op]: value } } }));
        expect(c.params.length).toBe(1);
        expect(c.sql).toMatch(/\$1$/);
        expect(c.sql.replaceAll('$1', '')).not.toContain('$2');
      }),
      propertyRuns(200, 2_000),
    );
  });
});

interface ErrorCase {
  readonly name: string;
  readonly dataset?: Record<string, unknown>;
  readonly selection?: DatasetSelection;
  readonly options?: { schema?: string };
  readonly issues: ReadonlyArray<{ path: string | undefined; message: RegExp; patch?: unknown; suggestions?: string[] }>;
}

const errors: readonly ErrorCase[] = [
  {
    name: 'include hop that is not a field (#5716)',
    dataset: { include: ['acount'] },
    issues: [{ path: '/include/0', message: /hop "acount" is not a field of object "crm_opp"/, suggestions: ['account'] }],
  },
  {
    name: 'include hop that is not a relationship',
    dataset: { include: ['stage'] },
    issues: [{ path: '/include/0', message: /hop "stage" is a select field/ }],
  },
  {
    name: 'include hop across datasources (#5115)',
    dataset: { include: ['ledger'] },
    issues: [
      { path: '/include/0', message: /datasource "default"\) to object "crm_ledger" \(datasource "warehouse"\); a dataset cannot join across datasources/ },
    ],
  },
  { name: 'include hop through a multiple lookup', dataset: { include: ['labels'] }, issues: [{ path: '/include/0', message: /multiple lookup \(to-many\)/ }] },
  {
    name: 'include hop to a missing object',
    dataset: { include: ['account.region'] },
    issues: [{ path: '/include/0', message: /"crm_region", which does not exist/ }],
  },
  {
    name: 'more than 3 hops',
    dataset: { include: ['account.parent.parent.parent'] },
    issues: [{ path: '/include/0', message: /has 4 hops; a dataset joins at most 3/ }],
  },
  {
    name: 'a dotted field not declared in include (#5367), patched',
    dataset: { dimensions: [{ name: 'ind', field: 'account.industry' }] },
    issues: [
      {
        path: '/dimensions/0/field',
        message: /relationship path "account" is not declared in the include/,
        patch: [{ op: 'add', path: '/include', value: ['account'] }],
      },
    ],
  },
  {
    name: 'a dotted field under an undeclared deeper path, appended to include',
    dataset: { include: ['account'], dimensions: [{ name: 'o', field: 'account.owner.name' }] },
    issues: [{ path: '/dimensions/0/field', message: /"account.owner" is not declared/, patch: [{ op: 'add', path: '/include/-', value: 'account.owner' }] }],
  },
  {
    name: 'a field under a broken include is reported once, at the include',
    dataset: { include: ['acount'], dimensions: [{ name: 'i', field: 'acount.industry' }] },
    issues: [{ path: '/include/0', message: /hop "acount"/ }],
  },
  {
    name: 'unknown base field, patched to the near miss',
    dataset: { dimensions: [{ name: 's', field: 'stag' }] },
    issues: [
      {
        path: '/dimensions/0/field',
        message: /field "stag", which object "crm_opp" does not have/,
        patch: [{ op: 'replace', path: '/dimensions/0/field', value: 'stage' }],
      },
    ],
  },
  {
    name: 'unknown joined field',
    dataset: { include: ['account'], measures: [{ name: 'x', aggregate: 'max', field: 'account.nope' }] },
    issues: [{ path: '/measures/0/field', message: /field "nope" \(through "account"\), which object "crm_account" does not have/ }],
  },
  {
    name: 'unknown measure in the selection',
    selection: { measures: ['nn'] },
    issues: [{ path: undefined, message: /asks dataset "opp_metrics" for measure "nn", which it does not declare \(it has: n\)/, suggestions: ['n'] }],
  },
  { name: 'unknown dimension in the selection', selection: { dimensions: ['stages'] }, issues: [{ path: undefined, message: /dimension "stages"/ }] },
  {
    name: 'derived cycle',
    dataset: {
      measures: [
        { name: 'a', derived: { op: 'sum', of: ['b'] } },
        { name: 'b', derived: { op: 'sum', of: ['a'] } },
      ],
    },
    issues: [{ path: '/measures/1/derived/of/0', message: /a → b → a/ }],
  },
  {
    name: 'derived from itself',
    dataset: { measures: [{ name: 'a', derived: { op: 'sum', of: ['a'] } }] },
    issues: [{ path: '/measures/0/derived/of/0', message: /derives back from it/ }],
  },
  {
    name: 'unknown derived operand',
    dataset: {
      measures: [
        { name: 'n', aggregate: 'count' },
        { name: 'r', derived: { op: 'ratio', of: ['n', 'm'] } },
      ],
    },
    issues: [{ path: '/measures/1/derived/of/1', message: /derives from "m", which is not a measure/ }],
  },
  {
    name: 'ratio of one measure',
    dataset: {
      measures: [
        { name: 'n', aggregate: 'count' },
        { name: 'r', derived: { op: 'ratio', of: ['n'] } },
      ],
    },
    issues: [{ path: '/measures/1/derived/of', message: /ratio of 1 measure/ }],
  },
  {
    name: 'sum of a text field',
    dataset: { measures: [{ name: 's', aggregate: 'sum', field: 'name' }] },
    issues: [{ path: '/measures/0/field', message: /sum of field "name", a text field/ }],
  },
  {
    name: 'sum without a field',
    dataset: { measures: [{ name: 's', aggregate: 'sum' }] },
    issues: [{ path: '/measures/0', message: /aggregates sum but names no field/ }],
  },
  {
    name: 'neither aggregate nor derived',
    dataset: { measures: [{ name: 's', field: 'amount' }] },
    issues: [{ path: '/measures/0', message: /neither an aggregate nor a derived/ }],
  },
  {
    name: 'a date dimension on a select',
    dataset: { dimensions: [{ name: 's', field: 'stage', type: 'date', dateGranularity: 'month' }] },
    issues: [{ path: '/dimensions/0/type', message: /is typed "date" and bucketed by month, but field "stage" is a select field/ }],
  },
  {
    name: 'a name that is not a SQL alias',
    dataset: { measures: [{ name: 'n-count', aggregate: 'count' }] },
    issues: [{ path: '/measures/0/name', message: /not a usable SQL column name/ }],
  },
  {
    name: 'a dimension and a measure of one name',
    dataset: { measures: [{ name: 'stage', aggregate: 'count' }] },
    issues: [{ path: '/measures/0/name', message: /a dimension and a measure both named "stage"/ }],
  },
  { name: 'no base object', dataset: { object: undefined }, issues: [{ path: '/object', message: /names no base object/ }] },
  {
    name: 'a missing base object',
    dataset: { object: 'crm_oppp' },
    issues: [{ path: '/object', message: /reads object "crm_oppp", which does not exist/, suggestions: ['crm_opp'] }],
  },
  { name: 'nothing to select', dataset: { dimensions: [], measures: [] }, issues: [{ path: '', message: /declares no dimension and no measure/ }] },
  {
    name: 'dataset filter on an unknown field',
    dataset: { filter: { stge: 'won' } },
    issues: [{ path: '/filter/stge', message: /The filter of dataset "opp_metrics" at "stge" reads field "stge"/ }],
  },
  {
    name: 'measure filter with an unknown operator',
    dataset: { measures: [{ name: 'n', aggregate: 'count', filter: { stage: { $neq: 'won' } } }] },
    issues: [{ path: '/measures/0/filter/stage/$neq', message: /operator "\$neq"/, suggestions: ['$eq', '$ne'] }],
  },
  {
    name: 'an unknown placeholder',
    selection: { filter: { close_date: { $gte: '{start_of_week}' } } },
    issues: [{ path: undefined, message: /placeholder "\{start_of_week\}"/ }],
  },
  {
    name: 'a date placeholder on a time field',
    selection: { filter: { at_time: { $gte: '{today}' } } },
    issues: [{ path: undefined, message: /time field "at_time"/ }],
  },
  { name: 'null is not ordered', selection: { filter: { amount: { $gt: null } } }, issues: [{ path: undefined, message: /null is not ordered/ }] },
  { name: '$in of a non-array', selection: { filter: { stage: { $in: 'won' } } }, issues: [{ path: undefined, message: /\$in takes an array/ }] },
  {
    name: 'an object comparand',
    selection: { filter: { stage: { $eq: { a: 1 } } } },
    issues: [{ path: undefined, message: /a comparand must be a string, number, boolean or null/ }],
  },
  {
    name: 'an unknown logical operator',
    selection: { filter: { $xor: [] } },
    issues: [{ path: undefined, message: /"\$xor", which is not a logical operator/ }],
  },
  { name: 'a bad limit', selection: { limit: -1 }, issues: [{ path: undefined, message: /limit -1/ }] },
  { name: 'a bad schema name', options: { schema: 'a-b' }, issues: [{ path: undefined, message: /schema option "a-b"/ }] },
];

describe('compileDataset: errors are dataset_compile_error issues', () => {
  it.each(errors)('$name', ({ dataset, selection, options, issues: expected }) => {
    const { graph, dataset: node } = datasetGraph(dataset ?? {});
    const result = compileDataset(node, graph, selection, options);
    if (result.ok) throw new Error(`expected compile errors, got ${result.compiled.sql}`);
    expect(result.issues.length).toBe(expected.length);
    result.issues.forEach((issue, i) => {
      const want = expected[i]!;
      expect(BuildIssueSchema.parse(issue)).toEqual(issue);
      expect(issue).toMatchObject({ layer: 'render', severity: 'error', code: 'dataset_compile_error', artifact: { type: 'dataset', name: 'opp_metrics' } });
      expect(issue.path).toBe(want.path);
      expect(issue.message).toMatch(want.message);
      expect(issue.message).toContain('opp_metrics');
      expect(issue.fix).toBeTruthy();
      if (want.patch) expect(issue.patch).toEqual(want.patch);
      if (want.suggestions) expect(issue.suggestions).toEqual(want.suggestions);
    });
  });

  it('the error cases are named uniquely', () => {
    expect(new Set(errors.map((e) => e.name)).size).toBe(errors.length);
  });
});
