import { type Kysely, sql } from 'kysely';
import type { PlatformContext } from './database.ts';
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

/** A wait for a lock, as told to a caller: what is waited for, who holds it, how long it has waited. */
export interface LockWaitNotice {
  readonly what: string;
  readonly holders: string;
  readonly waitedMs: number;
}

/** How long a wait for a package's lock goes on before `onWait` is told (once). */
export const LOCK_NOTICE_MS = 1_000;

/** How a wait for a lock backs off: the pause after the first failed try, doubled after each, up to `most`. */
export const LOCK_RETRY_MS = { first: 20, most: 500 } as const;

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done, fail) => {
    if (signal?.aborted) return fail(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      fail(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      done();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const NOT_YET = Symbol('not yet');

/**
 * Tries `once` until it takes its lock (returns `{ value }`), pausing between tries (20 ms,
 * doubling to 500 ms): past `waitMs` it throws what `timedOut` makes; when `signal` aborts — before
 * a try or during a pause — its reason, at once. `onMiss` hears each failed try with the time waited.
 */
async function retryLock<T>(
  once: () => Promise<{ value: T } | typeof NOT_YET>,
  options: { waitMs: number; signal: AbortSignal | undefined; onMiss?: (waitedMs: number) => Promise<void> },
  timedOut: () => Promise<Error>,
): Promise<T> {
  const { signal, waitMs } = options;
  const started = Date.now();
  for (let wait: number = LOCK_RETRY_MS.first; ; wait = Math.min(LOCK_RETRY_MS.most, wait * 2)) {
    signal?.throwIfAborted();
    const ran = await once();
    if (ran !== NOT_YET) return ran.value;
    const left = waitMs - (Date.now() - started);
    if (left <= 0) throw await timedOut();
    await options.onMiss?.(Date.now() - started);
    await pause(Math.min(wait, left), signal);
  }
}

/**
 * Takes the advisory lock `key`, waiting at most `waitMs`; past that it throws
 * {@link LockTimeoutError} naming the session that holds it. `xact`: a transaction-level lock taken
 * inside the caller's transaction; otherwise a session lock on the caller's pinned connection.
 *
 * The wait is a loop of `pg_try_advisory_*lock` with pauses (20 ms, doubling to 500 ms), not a
 * blocking lock statement: `signal` ends it at once, whenever it aborts — before the first try, in
 * a pause, or between tries (its reason is thrown; the lock is not taken). A blocking wait could
 * only be ended by cancelling its statement from another connection, and an abort that came just
 * before the statement reached the server was lost: the publish then waited the whole minute.
 */
export async function takeAdvisoryLock<DB>(
  db: Kysely<DB>,
  key: string,
  what: string,
  options: { xact: boolean; waitMs?: number; signal?: AbortSignal | undefined },
): Promise<void> {
  const waitMs = options.waitMs ?? LOCK_WAIT_MS;
  await retryLock(
    async () => {
      const got = options.xact
        ? (await sql<{ got: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as got`.execute(db)).rows[0]?.got
        : (await sql<{ got: boolean }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as got`.execute(db)).rows[0]?.got;
      return got ? { value: undefined } : NOT_YET;
    },
    { waitMs, signal: options.signal },
    async () =>
      new LockTimeoutError(
        `${what} is locked by another publish: ${await advisoryHolders(db, key)} holds it, and bvl waited ${Math.round(waitMs / 1000)} s. Try again when that publish finishes.`,
      ),
  );
}

/**
 * Runs `fn` on one pinned connection holding the package's advisory lock for the whole of it, so
 * "replace the drafts, then publish them" is one step: a concurrent run of the same package waits
 * (at most {@link LOCK_WAIT_MS}, then a {@link LockTimeoutError} names the holder) instead of
 * publishing (or discarding) this run's drafts. publishPackage takes the same lock per
 * transaction; on the same session that is re-entrant. The session carries the application name
 * `bvl publish <tenant>/<package>` meanwhile, so others can name it.
 *
 * The wait holds no connection: each try takes a connection from the pool, tries the lock
 * (pg_try_advisory_lock) and, when another session holds it, gives the connection back and
 * pauses (20 ms, doubling to 500 ms) before the next try. So publishes queued behind one package
 * never exhaust the pool for everyone else. `signal` ends the wait when it aborts (its reason is
 * thrown); the lock is not taken then. A wait past {@link LOCK_NOTICE_MS} is told once to
 * `onWait`, naming the holder (the CLI prints it), since a try-lock leaves no waiter in pg_locks for
 * a watcher to see.
 */
export async function withPackageLock<T>(
  ctx: PlatformContext,
  scope: PackageScope,
  fn: (pinned: PlatformContext) => Promise<T>,
  options: { waitMs?: number; signal?: AbortSignal | undefined; onWait?: ((w: LockWaitNotice) => void) | undefined } = {},
): Promise<T> {
  const { signal } = options;
  let told = false;
  const waitMs = options.waitMs ?? LOCK_WAIT_MS;
  const key = packageLockKey(scope);
  return retryLock(
    () =>
      ctx.db.connection().execute(async (conn) => {
        const got = (await sql<{ got: boolean }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as got`.execute(conn)).rows[0]?.got;
        if (!got) return NOT_YET;
        try {
          const name = (await sql<{ v: string }>`select current_setting('application_name') as v`.execute(conn)).rows[0]?.v ?? '';
          await sql`select set_config('application_name', ${publishApplicationName(scope)}, false)`.execute(conn);
          try {
            signal?.throwIfAborted();
            return { value: await fn({ ...ctx, db: conn, pool: ctx.pool ?? ctx.db }) };
          } finally {
            await sql`select set_config('application_name', ${name}, false)`.execute(conn).catch(() => {});
          }
        } finally {
          // If the session died, its locks died with it.
          await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(conn).catch(() => {});
        }
      }),
    {
      waitMs,
      signal,
      onMiss: async (waited) => {
        if (options.onWait && !told && waited >= LOCK_NOTICE_MS) {
          told = true;
          options.onWait({ what: 'the lock of the package (another publish holds it)', holders: await advisoryHolders(ctx.db, key), waitedMs: waited });
        }
      },
    },
    async () =>
      new LockTimeoutError(
        `package "${scope.package}" of tenant "${scope.tenant}" is locked by another publish: ${await advisoryHolders(ctx.db, key)} holds it, and bvl waited ${Math.round(waitMs / 1000)} s. Try again when that publish finishes.`,
      ),
  );
}
