import type { PGlite } from '@electric-sql/pglite';
import { type CompiledQuery, type Kysely, type QueryResult, sql } from 'kysely';
import type { BvlDatabase, DynamicDatabase, PlatformContext } from './database.ts';

/** Statement timeout of a probe read unless the caller sets one. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

/**
 * The read-only probe path of an engine, so a probe costs about what its statement costs.
 * PostgreSQL: sessions that are read-only with a statement timeout from the moment they connect
 * (`default_transaction_read_only` and `statement_timeout` as connection options), so a probe is one
 * round trip — no BEGIN, SET and COMMIT around every read. PGlite (one in-process session): one
 * exclusive call that begins the transaction read-only with the timeout, runs the statement and
 * commits. Either way a write fails with the database's "cannot execute … in a read-only
 * transaction". The probe SQL is bvl's own compiled SQL (identifiers validated, values as
 * parameters, one statement), so it cannot turn the session setting back off.
 */
export interface ReadOnlySessions {
  /** One statement, read-only with this statement timeout; undefined when the caller must begin a read-only transaction itself. */
  query<R>(timeoutMs: number, query: CompiledQuery<R>): Promise<QueryResult<R>> | undefined;
  /** A kysely whose every statement is read-only with this timeout (PostgreSQL), for transactions of several statements; else undefined. */
  db(timeoutMs: number): Kysely<DynamicDatabase> | undefined;
  close(): Promise<void>;
}

/** What the read-only path takes: a platform, with its engine's read-only path when it has one (openPlatform gives both engines one). */
export type ReadOnlyContext = PlatformContext & { readonly readOnly?: ReadOnlySessions | undefined };

const timeoutOf = (ms: number) => Math.max(1, Math.floor(ms));

/**
 * Runs `fn` in a READ ONLY transaction with a statement timeout. On PostgreSQL it is a transaction
 * on a read-only session (BEGIN … COMMIT, one snapshot for every statement of `fn`); elsewhere the
 * transaction is begun read-only and the timeout set for it (`set_config(…, true)`, so it ends with
 * the transaction). Any write inside fails with the database's "cannot execute … in a read-only
 * transaction". PostgreSQL enforces the timeout; PGlite accepts the setting but, single-threaded
 * WASM without timer signals, cannot interrupt a running statement.
 */
export async function runReadOnly<T>(ctx: ReadOnlyContext, timeoutMs: number, fn: (db: Kysely<DynamicDatabase>) => Promise<T>): Promise<T> {
  const sessions = ctx.readOnly?.db(timeoutMs);
  if (sessions) return sessions.transaction().execute(fn);
  // Explicit statements rather than kysely's setAccessMode: the PGlite driver ignores access modes.
  return ctx.db.connection().execute(async (conn) => {
    const db = conn as unknown as Kysely<DynamicDatabase>;
    await sql`begin read only`.execute(db);
    try {
      await sql`select set_config('statement_timeout', ${String(timeoutOf(timeoutMs))}, true)`.execute(db);
      const result = await fn(db);
      await sql`commit`.execute(db);
      return result;
    } catch (e) {
      await sql`rollback`.execute(db).catch(() => {});
      throw e;
    }
  });
}

/**
 * One read-only statement with a statement timeout: on PostgreSQL a single round trip on a
 * read-only session, on PGlite one exclusive call; otherwise {@link runReadOnly} around it.
 */
export function readOnlyQuery<R>(ctx: ReadOnlyContext, timeoutMs: number, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  return ctx.readOnly?.query(timeoutMs, query) ?? runReadOnly(ctx, timeoutMs, (db) => db.executeQuery(query));
}

/** The connection options that make a PostgreSQL session read-only with a statement timeout. */
export function readOnlySessionOptions(timeoutMs: number): string {
  return `-c default_transaction_read_only=on -c statement_timeout=${timeoutOf(timeoutMs)}`;
}

/**
 * PGlite's read-only path: the statement in a transaction begun read-only with the timeout, issued
 * to PGlite directly rather than as separate queries through kysely. It first takes kysely's
 * connection, so it never runs inside a kysely transaction in progress on the same instance, and
 * nothing else of bvl's reaches the instance until it commits.
 */
export function pgliteReadOnly(db: Kysely<BvlDatabase>, lite: PGlite): ReadOnlySessions {
  return {
    // Three PGlite calls under kysely's connection (nothing else reaches this instance meanwhile):
    // BEGIN READ ONLY with the timeout in one simple-protocol exec, the statement, COMMIT.
    query: <R>(timeoutMs: number, query: CompiledQuery<R>) =>
      db.connection().execute(async () => {
        await lite.exec(`begin read only; set local statement_timeout = ${timeoutOf(timeoutMs)}`);
        try {
          const result = await lite.query<R>(query.sql, [...query.parameters]);
          await lite.exec('commit');
          return { rows: result.rows };
        } catch (e) {
          await lite.exec('rollback').catch(() => {});
          throw e;
        }
      }),
    db: () => undefined,
    close: async () => {},
  };
}
