import type { BuildIssue } from '@bvl/build-issue';
import { type Kysely, sql } from 'kysely';
import type { SchemaStep } from './diff-schema.ts';
import { countSwitchLocks, type LockTable, lockTableIssue } from './switch-locks.ts';

/** The server's lock table (see {@link LockTable}), from its settings. PGlite reports its own. */
export async function readLockTable<DB>(db: Kysely<DB>): Promise<LockTable> {
  const r = await sql<{ locks: number; connections: number; prepared: number }>`
    select current_setting('max_locks_per_transaction')::int as locks, current_setting('max_connections')::int as connections,
           current_setting('max_prepared_transactions')::int as prepared`.execute(db);
  const row = r.rows[0]!;
  return {
    maxLocksPerTransaction: row.locks,
    maxConnections: row.connections,
    maxPreparedTransactions: row.prepared,
    capacity: row.locks * (row.connections + row.prepared),
  };
}

/**
 * The relations of each of `tables` in the tenant schema — the table, its indexes, its TOAST table
 * and TOAST index — which its DDL locks. Reads the catalog for those tables only.
 */
export async function readRelationCounts<DB>(db: Kysely<DB>, schema: string, tables: readonly string[]): Promise<Map<string, number>> {
  if (tables.length === 0) return new Map();
  const r = await sql<{ name: string; n: number }>`
    select c.relname as name, (1 + (case when c.reltoastrelid <> 0 then 2 else 0 end)
           + (select count(*) from pg_catalog.pg_index i where i.indrelid = c.oid))::int as n
    from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
    where ns.nspname = ${schema} and c.relkind in ('r', 'p') and c.relname = any(${[...new Set(tables)]}::text[])`.execute(db);
  return new Map(r.rows.map((row) => [row.name, row.n]));
}

/**
 * Whether the publish transaction that runs `steps` and drops `drops` fits the server's lock table
 * (`table`, or read from the server): the refusal when it does not (see lockTableIssue), read
 * before any DDL runs. Reads the settings and the catalog rows of the tables it changes.
 */
export async function checkSwitchLocks<DB>(
  db: Kysely<DB>,
  pkg: string,
  schema: string,
  steps: readonly SchemaStep[],
  drops: readonly string[],
  table?: LockTable,
): Promise<BuildIssue | undefined> {
  const changed = [...steps.filter((s) => s.kind !== 'create_table').map((s) => s.table), ...drops];
  const relations = await readRelationCounts(db, schema, changed);
  const counted = countSwitchLocks(steps, drops, (t) => relations.get(t) ?? 4);
  return lockTableIssue(pkg, counted, table ?? (await readLockTable(db)));
}
