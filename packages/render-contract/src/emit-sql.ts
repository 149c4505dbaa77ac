import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { CompiledDataset } from './compile-dataset.ts';
import type { DeferredSql } from './deferred-sql.ts';
import { type AnyDatabase, PG_COMPILER } from './pg-compiler.ts';

/** One LEFT JOIN of an include path: the joined table, its alias, and the lookup column it hangs off. */
export interface Join {
  readonly alias: string;
  readonly table: string;
  readonly parentAlias: string;
  readonly column: string;
}

/** One output column: its name, whether it groups, and its SQL (built here, when emitted). */
export interface Select {
  readonly name: string;
  readonly kind: 'dimension' | 'measure';
  readonly sql: DeferredSql;
}

/** Everything a planned query is made of, resolved and checked. */
export interface QueryParts {
  readonly table: string;
  readonly alias: string;
  readonly joins: readonly Join[];
  readonly selects: readonly Select[];
  readonly where: readonly DeferredSql<SqlBool>[];
  /** Explicit ordering by output column; absent: the first dimension, ascending. */
  readonly order?: ReadonlyArray<readonly [string, 'asc' | 'desc']> | undefined;
  readonly limit?: number | undefined;
  readonly schema?: string | undefined;
}

/** Emits a planned query as Postgres SQL with parameters (kysely, compiled without a connection). */
export function emitSql(parts: QueryParts): CompiledDataset {
  const { table, alias, joins, selects, where, order, limit, schema } = parts;
  // Tables are qualified by hand rather than with withSchema(), which would also rewrite column
  // references whose alias happens to equal a table name; every table is aliased, so refs never need the schema.
  const qualify = (t: string) => (schema ? `${schema}.${t}` : t);
  let q = PG_COMPILER.selectFrom(`${qualify(table)} as ${alias}`) as SelectQueryBuilder<AnyDatabase, string, Record<string, unknown>>;
  for (const j of joins) {
    q = q.leftJoin(`${qualify(j.table)} as ${j.alias}`, (on) =>
      on.on(sql<SqlBool>`${sql.ref(`${j.alias}.id`)} = ${sql.ref(`${j.parentAlias}.${j.column}`)}`),
    ) as typeof q;
  }
  // Each output column's SQL is built once: GROUP BY repeats a dimension's expression.
  const built: Array<{ name: string; kind: 'dimension' | 'measure'; sql: RawBuilder<unknown> }> = selects.map((s) => ({
    name: s.name,
    kind: s.kind,
    sql: s.sql(),
  }));
  q = q.select(built.map((s) => s.sql.as(s.name))) as typeof q;
  if (where.length === 1) q = q.where(where[0]!());
  else if (where.length > 1)
    q = q.where(
      sql<SqlBool>`${sql.join(
        where.map((w) => w()),
        sql` and `,
      )}`,
    );
  const dims = built.filter((s) => s.kind === 'dimension');
  if (dims.length > 0) q = q.groupBy(dims.map((d) => d.sql));
  if (order?.length) for (const [name, dir] of order) q = q.orderBy(sql.ref(name), dir);
  else if (dims[0]) q = q.orderBy(sql.ref(dims[0].name));
  if (limit !== undefined) q = q.limit(limit);
  const compiled = q.compile();
  return { sql: compiled.sql, params: [...compiled.parameters], columns: selects.map((s) => ({ name: s.name, kind: s.kind })) };
}
