import { type Kysely, sql } from 'kysely';
import type { BvlDatabase } from './database.ts';

/** The caller's signal aborted the publish before it committed: it rolled back, nothing was published. */
export class PublishCancelled extends Error {
  override readonly name = 'PublishCancelled';
}

/** What {@link watchAbort} gives a transaction: a check to call between steps, and a stop. */
export interface AbortWatch {
  /** Throws {@link PublishCancelled} once the signal has aborted. */
  check(): void;
  /** Stops watching (before the commit: an abort after it changes nothing). */
  done(): void;
}

/** An abort's reason in words (its Error's message, or the string given). */
export const abortReason = (signal: AbortSignal): string => {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r.message;
  return typeof r === 'string' && r !== '' ? r : 'the caller aborted it';
};

/** The error an aborted signal becomes. */
export const cancelledBy = (signal: AbortSignal): PublishCancelled =>
  new PublishCancelled(`the publish was cancelled before it committed (${abortReason(signal)})`);

/** How often an aborted transaction's statement is cancelled again, until the transaction ends. */
const CANCEL_AGAIN_MS = 200;

const IDLE: AbortWatch = { check() {}, done() {} };

/**
 * Watches `signal` for the transaction on `trx`. `check()` throws once it has aborted, so the
 * transaction stops at its next step and rolls back. With `other` (another connection of the same
 * PostgreSQL, e.g. the pool a pinned connection came from) an abort also cancels the statement the
 * transaction is running (a lock wait, a long DDL): `pg_cancel_backend`, aimed at this backend only
 * while this very transaction runs there (same pid, same transaction start), so a connection
 * already handed to someone else is never hit. Without `other` (PGlite: one connection, and it
 * cannot interrupt a statement) the transaction stops at its next check.
 */
export async function watchAbort(trx: Kysely<BvlDatabase>, other: Kysely<BvlDatabase> | undefined, signal: AbortSignal | undefined): Promise<AbortWatch> {
  if (!signal) return IDLE;
  let target: { pid: number; started: string } | undefined;
  if (other) target = (await sql<{ pid: number; started: string }>`select pg_backend_pid() as pid, now()::text as started`.execute(trx)).rows[0];
  let watching = true;
  let again: ReturnType<typeof setInterval> | undefined;
  const cancel = () => {
    if (!watching || !target || !other) return;
    void sql`select pg_cancel_backend(a.pid) from pg_catalog.pg_stat_activity a where a.pid = ${target.pid} and a.xact_start = ${target.started}::timestamptz`
      .execute(other)
      .catch(() => {});
  };
  // A cancel that reaches the backend between two statements cancels nothing, and the statement
  // after it could wait its whole lock timeout: so it is sent again until the transaction ends.
  const onAbort = () => {
    if (!watching || !target || !other) return;
    cancel();
    again = setInterval(cancel, CANCEL_AGAIN_MS);
    again.unref?.();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    check() {
      if (signal.aborted) throw cancelledBy(signal);
    },
    done() {
      watching = false;
      if (again !== undefined) clearInterval(again);
      signal.removeEventListener('abort', onAbort);
    },
  };
}
