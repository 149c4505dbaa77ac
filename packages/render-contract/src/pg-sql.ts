import { DefaultConnectionProvider, DefaultQueryExecutor, DummyDriver, PostgresAdapter, PostgresQueryCompiler, type QueryExecutorProvider } from 'kysely';

/**
 * Compiles kysely `sql` templates as Postgres (identifiers quoted by kysely, values as parameters)
 * without a connection: the executor a Kysely instance would hand them (same compiler, adapter and
 * no plugins, so the same SQL), without the Kysely class, which brings in all of kysely's query
 * builders — most of the code `bvl verify` would load at start-up. Built once per process.
 */
const EXECUTOR = new DefaultQueryExecutor(new PostgresQueryCompiler(), new PostgresAdapter(), new DefaultConnectionProvider(new DummyDriver()));
export const PG_SQL: QueryExecutorProvider = { getExecutor: () => EXECUTOR };

/** Postgres' identifier length limit (NAMEDATALEN - 1). */
export const MAX_IDENTIFIER_LENGTH = 63;

/** Whether `name` may be used as a quoted SQL identifier here: a plain ASCII name of at most 63 characters. */
export function isSqlIdentifier(name: string): boolean {
  return name.length <= MAX_IDENTIFIER_LENGTH && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}
