import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';

/** Tables are named by object and columns by field; their types are not known statically. */
export type AnyDatabase = Record<string, Record<string, unknown>>;

/**
 * A Kysely that only compiles: Postgres dialect, no connection (DummyDriver). Built once per
 * process — a Kysely instance per call would cost more than the compile itself.
 */
export const PG_COMPILER = new Kysely<AnyDatabase>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Postgres' identifier length limit (NAMEDATALEN - 1). */
export const MAX_IDENTIFIER_LENGTH = 63;

/** Whether `name` may be used as a quoted SQL identifier here: a plain ASCII name of at most 63 characters. */
export function isSqlIdentifier(name: string): boolean {
  return name.length <= MAX_IDENTIFIER_LENGTH && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}
