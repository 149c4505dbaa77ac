import { type Kysely, sql } from 'kysely';
import type { DynamicDatabase, PlatformContext } from './database.ts';

/** Statement timeout of a probe read unless the caller sets one. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

/**
 * Runs `fn` in a READ ONLY transaction with a statement timeout (`SET LOCAL`, so it ends with the
 * transaction). Any write inside fails with the database's "cannot execute … in a read-only
 * transaction". PostgreSQL enforces the timeout; PGlite accepts the setting but, single-threaded
 * WASM without timer signals, cannot interrupt a running statement.
 */
export async function runReadOnly<T>(ctx: PlatformContext, timeoutMs: number, fn: (db: Kysely<DynamicDatabase>) => Promise<T>): Promise<T> {
  return ctx.db.transaction().execute(async (trx) => {
    // Explicit statements rather than kysely's setAccessMode: the PGlite driver ignores access modes.
    await sql`set transaction read only`.execute(trx);
    await sql`select set_config('statement_timeout', ${String(Math.max(1, Math.floor(timeoutMs)))}, true)`.execute(trx);
    return fn(trx as unknown as Kysely<DynamicDatabase>);
  });
}
