import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { CompiledDataset } from './dataset-plan.ts';
import type { DeferredSql } from './deferred-sql.ts';
import { PG_SQL } from './pg-sql.ts';

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

/**
 * Emits a planned query as Postgres SQL with parameters: one kysely `sql` template compiled without a
 * connection (identifiers quoted by kysely, values as parameters). One template rather than the query
 * builder, whose every step copies and freezes the whole query node: emitting is most of a probe's
 * planning, and the text is the same (`select … from … left join … where … group by … order by … limit`).
 */
export function emitSql(parts: QueryParts): CompiledDataset {
  const { table, alias, joins, selects, where, order, limit, schema } = parts;
  // Every table is aliased, so column references never need the schema; only the tables are qualified.
  const tableId = (t: string) => (schema ? sql.id(schema, t) : sql.id(t));
  // Each output column's SQL is built once: GROUP BY repeats a dimension's expression.
  const built = selects.map((s) => ({ name: s.name, kind: s.kind, sql: s.sql() }));
  const dims = built.filter((s) => s.kind === 'dimension');
  const clauses: RawBuilder<unknown>[] = [
    sql`select ${sql.join(built.map((s) => sql`${s.sql} as ${sql.id(s.name)}`))} from ${tableId(table)} as ${sql.id(alias)}`,
  ];
  for (const j of joins)
    clauses.push(sql`left join ${tableId(j.table)} as ${sql.id(j.alias)} on ${sql.id(j.alias, 'id')} = ${sql.id(j.parentAlias, j.column)}`);
  if (where.length > 0)
    clauses.push(
      sql`where ${sql.join(
        where.map((w) => w()),
        sql` and `,
      )}`,
    );
  if (dims.length > 0) clauses.push(sql`group by ${sql.join(dims.map((d) => d.sql))}`);
  if (order?.length) clauses.push(sql`order by ${sql.join(order.map(([name, dir]) => sql`${sql.id(name)} ${sql.raw(dir)}`))}`);
  else if (dims[0]) clauses.push(sql`order by ${sql.id(dims[0].name)}`);
  if (limit !== undefined) clauses.push(sql`limit ${limit}`);
  const compiled = sql.join(clauses, sql` `).compile(PG_SQL);
  return { sql: compiled.sql, params: [...compiled.parameters], columns: built.map((s) => ({ name: s.name, kind: s.kind })) };
}
