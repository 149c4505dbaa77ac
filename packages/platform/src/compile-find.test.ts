import { buildGraph, collectStack, VIEW_FILTER_OPERATOR_NAMES } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { compileFind, type FindQuery } from './compile-find.ts';

const { graph } = buildGraph(
  collectStack({
    objects: [
      {
        name: 'task',
        fields: { title: { type: 'text' }, hours: { type: 'number' }, due: { type: 'date' }, tags: { type: 'multiselect' }, meta: { type: 'json' } },
      },
    ],
  }),
);
const task = graph.objects.get('task');
const compile = (q: FindQuery) => compileFind('t_x', 'task', task, q);
const sqlOf = (q: FindQuery) => {
  const r = compile(q);
  if (!r.ok) throw new Error(r.error);
  return { sql: r.query.sql, params: r.query.parameters };
};

describe('compileFind', () => {
  it("compiles every view filter operator L1 accepts (one list, metadata's)", () => {
    for (const operator of VIEW_FILTER_OPERATOR_NAMES) {
      expect(compile({ filter: [{ field: 'title', operator, value: operator === 'between' ? ['a', 'b'] : 'x' }] }).ok, operator).toBe(true);
    }
  });

  it('reads id and the columns, sorted and limited, values as parameters', () => {
    expect(sqlOf({ columns: ['title', 'hours'], sort: [{ field: 'hours', order: 'desc' }], limit: 1 })).toEqual({
      sql: 'select "id" as "id", "title" as "title", "hours" as "hours" from "t_x"."task" order by "hours" desc limit $1',
      params: [1],
    });
  });
  it('accepts the legacy "field desc" sort string', () => expect(sqlOf({ sort: 'hours desc' }).sql).toContain('order by "hours" desc'));

  const ops: Array<[string, string, unknown, RegExp]> = [
    ['equals', 'title', 'a', /"title" = \$1/],
    ['eq', 'title', 'a', /"title" = \$1/],
    ['not_equals', 'title', 'a', /"title" is distinct from \$1/],
    ['contains', 'title', 'a', /"title"::text like \$1/],
    ['icontains', 'title', 'a', /translate\("title"::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'\) like \$1/],
    ['not_contains', 'title', 'a', /not coalesce\("title"::text like \$1, false\)/],
    ['starts_with', 'title', 'a', /"title"::text like \$1/],
    ['ends_with', 'title', 'a', /"title"::text like \$1/],
    ['greater_than', 'hours', 2, /"hours" > \$1/],
    ['gte', 'hours', 2, /"hours" >= \$1/],
    ['less_than_or_equal', 'hours', 2, /"hours" <= \$1/],
    ['in', 'title', ['a', 'b'], /"title" in \(\$1, \$2\)/],
    ['not_in', 'title', 'a,b', /not coalesce\("title" in \(\$1, \$2\), false\)/],
    ['is_null', 'due', undefined, /"due" is null/],
    ['is_not_null', 'due', undefined, /"due" is not null/],
    ['is_empty', 'title', undefined, /\("title" is null or "title" = ''\)/],
    ['is_empty', 'tags', undefined, /cardinality\("tags"\) = 0/],
    ['is_not_empty', 'meta', undefined, /not \("meta" is null or "meta" in/],
    ['before', 'due', '{today}', /"due" < current_date/],
    ['after', 'due', '{7_days_ago}', /"due" > \(current_date - \$1::int\)/],
    ['between', 'hours', [1, 5], /"hours" >= \$1 and "hours" <= \$2/],
    ['contains', 'tags', 'red', /\$1 = any\("tags"\)/],
  ];
  it.each(ops)('%s on %s', (operator, field, value, expected) => expect(sqlOf({ filter: [{ field, operator, value }] }).sql).toMatch(expected));
  it('accepts a Mongo-style filter object too', () => expect(sqlOf({ filter: { hours: { $gt: 1 } } }).sql).toMatch(/"hours" > \$1/));
  it('reads a field the metadata lacks by name (the database decides)', () =>
    expect(sqlOf({ columns: ['ghost'], sort: [{ field: 'ghost2', order: 'asc' }] }).sql).toContain('"ghost"'));

  const refused: Array<[string, FindQuery | { schema: string } | { object: string }, RegExp]> = [
    ['SQL in a column', { columns: ['title"; delete from task; --'] }, /column of "task" ".*" must be snake_case/],
    ['a 10k-character sort field', { sort: [{ field: 'a'.repeat(10_000), order: 'asc' }] }, /10000 characters long/],
    ['a quote in a filter field', { filter: [{ field: "ti'tle", operator: 'equals', value: 1 }] }, /filter field "ti'tle" .*snake_case/],
    ['an unknown operator', { filter: [{ field: 'title', operator: 'sounds_like', value: 'x' }] }, /not a view filter operator/],
    ['a bad comparand', { filter: [{ field: 'title', operator: 'equals', value: { $where: 'x' } }] }, /refused before running SQL/],
    ['a huge limit', { limit: 1e9 }, /limit/],
  ];
  it.each(refused)('refuses %s before any SQL', (_label, q, why) => {
    const r = compile(q as FindQuery);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(why);
  });
  it('refuses a hostile table or schema name', () => {
    expect(compileFind('t_x', 'task; drop', task, {})).toMatchObject({ ok: false, error: /object "task; drop"/ });
    expect(compileFind('public"."x', 'task', task, {})).toMatchObject({ ok: false, error: /schema/ });
  });
});
