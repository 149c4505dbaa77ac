import { type Kysely, sql } from 'kysely';
import type { PlatformContext } from './database.ts';
import { sqlState } from './describe-db-error.ts';
import type { PackageScope } from './scope.ts';

/** The advisory-lock key of a tenant's package: publishes of one package take it, in turn. */
export const packageLockKey = (scope: PackageScope): string => `bvl.publish:${scope.tenant}/${scope.package}`;

/** The advisory-lock key of a tenant: held while a publish decides ownership and changes the tenant's tables. */
export const tenantLockKey = (tenant: string): string => `bvl.tenant:${tenant}`;

/** How long a publish waits for a lock another publish holds before it gives up and names the holder. */
export const LOCK_WAIT_MS = 60_000;

/** A lock another session held for longer than the wait allows; the message names that session. */
export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
}

/** The `application_name` a publish session carries, so a waiter can say who holds a lock. */
export const publishApplicationName = (scope: PackageScope): string => `bvl publish ${scope.tenant}/${scope.package}`;

/** Describes the sessions (other than this one) holding the advisory lock `key`, or why none could be named. */
async function advisoryHolders<DB>(db: Kysely<DB>, key: string): Promise<string> {
  const rows = await sql<{ pid: number; application_name: string | null; state: string | null; secs: number | null }>`
    select a.pid, a.application_name, a.state,
           extract(epoch from (now() - coalesce(a.xact_start, a.backend_start)))::int as secs
    from pg_catalog.pg_locks l join pg_catalog.pg_stat_activity a on a.pid = l.pid
    where l.locktype = 'advisory' and l.granted and l.objsubid = 1 and l.pid <> pg_backend_pid()
      and ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(${key}, 0)
    order by a.pid`
    .execute(db)
    .catch(() => ({ rows: [] }));
  return describeSessions(rows.rows);
}

/** "pid 4242 (application "bvl publish t/p", active, for 12 s)", joined. */
export function describeSessions(rows: ReadonlyArray<{ pid: number; application_name: string | null; state: string | null; secs: number | null }>): string {
  if (rows.length === 0) return 'a session that could not be identified';
  return rows
    .slice(0, 3)
    .map(
      (r) =>
        `pid ${r.pid} (${r.application_name ? `application ${JSON.stringify(r.application_name.slice(0, 80))}, ` : ''}${r.state ?? 'state unknown'}${r.secs !== null ? `, for ${r.secs} s` : ''})`,
    )
    .join(', ');
}

/**
 * Takes the advisory lock `key`, waiting at most `waitMs` (a lock_timeout); past that it throws
 * {@link LockTimeoutError} naming the session that holds it. `xact`: a transaction-level lock taken
 * inside the caller's transaction (under a savepoint, so the transaction survives the timeout long
 * enough to name the holder); otherwise a session lock on the caller's pinned connection.
 */
export async function takeAdvisoryLock<DB>(db: Kysely<DB>, key: string, what: string, options: { xact: boolean; waitMs?: number }): Promise<void> {
  const waitMs = options.waitMs ?? LOCK_WAIT_MS;
  const before = options.xact ? undefined : (await sql<{ v: string }>`select current_setting('lock_timeout') as v`.execute(db)).rows[0]?.v;
  await sql`select set_config('lock_timeout', ${`${waitMs}ms`}, ${options.xact})`.execute(db);
  if (options.xact) await sql`savepoint bvl_lock`.execute(db);
  try {
    if (options.xact) await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
    else await sql`select pg_advisory_lock(hashtextextended(${key}, 0))`.execute(db);
    if (options.xact) await sql`release savepoint bvl_lock`.execute(db);
  } catch (e) {
    if (options.xact) await sql`rollback to savepoint bvl_lock`.execute(db);
    if (sqlState(e) !== '55P03') throw e;
    const holders = await advisoryHolders(db, key);
    throw new LockTimeoutError(
      `${what} is locked by another publish: ${holders} holds it, and bvl waited ${Math.round(waitMs / 1000)} s. Try again when that publish finishes.`,
      { cause: e },
    );
  } finally {
    if (before !== undefined) await sql`select set_config('lock_timeout', ${before}, false)`.execute(db).catch(() => {});
  }
}

/**
 * Runs `wait` (a lock wait on `conn`) so that `signal` ends it: on PostgreSQL an abort cancels the
 * statement `conn` is waiting in (pg_cancel_backend from the pool, only while that backend waits
 * for a lock in pg_advisory_lock), on PGlite nothing waits. A wait that failed after an abort
 * throws the abort's reason; one that got the lock returns (the caller checks before going on).
 */
async function waitAbortably<DB, T>(ctx: PlatformContext, conn: Kysely<DB>, signal: AbortSignal | undefined, wait: () => Promise<T>): Promise<T> {
  if (!signal || ctx.engine !== 'postgres') return wait();
  const pool = ctx.pool ?? ctx.db;
  const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn)).rows[0]?.pid;
  const onAbort = () => {
    void sql`select pg_cancel_backend(a.pid) from pg_catalog.pg_stat_activity a
      where a.pid = ${pid} and a.state = 'active' and a.wait_event_type = 'Lock' and a.query like 'select pg_advisory_lock(%'`
      .execute(pool)
      .catch(() => {});
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await wait();
  } catch (e) {
    signal.throwIfAborted();
    throw e;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Runs `fn` on one pinned connection holding the package's advisory lock for the whole of it, so
 * "replace the drafts, then publish them" is one step: a concurrent run of the same package waits
 * (at most {@link LOCK_WAIT_MS}, then a {@link LockTimeoutError} names the holder) instead of
 * publishing (or discarding) this run's drafts. publishPackage takes the same lock per
 * transaction; on the same session that is re-entrant. The session carries the application name
 * `bvl publish <tenant>/<package>` meanwhile, so others can name it. `signal` ends the wait for the
 * lock when it aborts (on PostgreSQL the waiting statement is cancelled; the abort's error is thrown).
 */
export async function withPackageLock<T>(
  ctx: PlatformContext,
  scope: PackageScope,
  fn: (pinned: PlatformContext) => Promise<T>,
  options: { waitMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<T> {
  const { signal, ...wait } = options;
  signal?.throwIfAborted();
  return ctx.db.connection().execute(async (conn) => {
    const key = packageLockKey(scope);
    const name = (await sql<{ v: string }>`select current_setting('application_name') as v`.execute(conn)).rows[0]?.v ?? '';
    await sql`select set_config('application_name', ${publishApplicationName(scope)}, false)`.execute(conn);
    try {
      await waitAbortably(ctx, conn, signal, () =>
        takeAdvisoryLock(conn, key, `package "${scope.package}" of tenant "${scope.tenant}"`, { xact: false, ...wait }),
      );
      try {
        signal?.throwIfAborted();
        return await fn({ ...ctx, db: conn, pool: ctx.pool ?? ctx.db });
      } finally {
        // If the session died, its locks died with it.
        await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(conn).catch(() => {});
      }
    } finally {
      await sql`select set_config('application_name', ${name}, false)`.execute(conn).catch(() => {});
    }
  });
}
