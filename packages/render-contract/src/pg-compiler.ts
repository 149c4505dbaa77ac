import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';

/** Tables are named by object and columns by field; their types are not known statically. */
export type AnyDatabase = Record<string, Record<string, unknown>>;

/**
 * A Kysely that only compiles: Postgres dialect, no connection (DummyDriver), for the query builder
 * (the platform's finds). Built once per process — a Kysely instance per call would cost more than
 * the compile itself. Its own module: the Kysely class brings in every query builder of kysely, which
 * `bvl verify` (sql templates only, compiled with PG_SQL) never loads.
 */
export const PG_COMPILER = new Kysely<AnyDatabase>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
