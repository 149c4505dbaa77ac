import { sql } from 'kysely';
import type { PlatformContext } from './database.ts';
import { describeSessions } from './run-package-lock.ts';

/** A lock wait a watcher saw: what this process waits for, who holds it, for how long it has waited. */
export interface LockWait {
  /** `table bvl.metadata_items`, or `the lock of package "p" of tenant "t"` (an advisory lock). */
  readonly what: string;
  /** The sessions holding it, described (pid, application, state, for how long). */
  readonly holders: string;
  readonly waitedMs: number;
}

/**
 * Watches this process's PostgreSQL sessions (found by `application_name`: the pool's own name, or
 * a publish's `bvl publish t/p`) for lock waits, every `everyMs`: each new thing waited for is told
 * once to `onWait`, with who holds it. Returns the stop. PGlite: one process, nothing waits; a no-op.
 */
export function watchLockWaits(ctx: PlatformContext, names: readonly string[], onWait: (w: LockWait) => void, everyMs = 2_000): () => void {
  if (ctx.engine !== 'postgres') return () => {};
  const told = new Set<string>();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void sql<{
      what: string | null;
      secs: number | null;
      holder: number | null;
      holder_app: string | null;
      holder_state: string | null;
      holder_secs: number | null;
    }>`
      select coalesce(
               (select string_agg(distinct case when l.locktype = 'relation' then 'table ' || n.nspname || '.' || c.relname else l.locktype end, ', ')
                  from pg_catalog.pg_locks l
                  left join pg_catalog.pg_class c on c.oid = l.relation
                  left join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                 where l.pid = w.pid and not l.granted), 'a lock') as what,
             extract(epoch from (now() - w.query_start))::int as secs,
             b.pid as holder, b.application_name as holder_app, b.state as holder_state,
             extract(epoch from (now() - coalesce(b.xact_start, b.backend_start)))::int as holder_secs
        from pg_catalog.pg_stat_activity w
        left join lateral (select * from pg_catalog.pg_stat_activity x where x.pid = any(pg_catalog.pg_blocking_pids(w.pid)) order by x.pid limit 1) b on true
       where w.wait_event_type = 'Lock' and w.application_name = any(${[...names]}::text[]) and w.pid <> pg_backend_pid()`
      .execute(ctx.pool ?? ctx.db)
      .then((r) => {
        for (const row of r.rows) {
          const what = row.what === 'advisory' ? 'the lock of the package (another publish holds it)' : (row.what ?? 'a lock');
          if (told.has(what)) continue;
          told.add(what);
          const holders =
            row.holder === null
              ? 'a session that could not be identified'
              : describeSessions([{ pid: row.holder, application_name: row.holder_app, state: row.holder_state, secs: row.holder_secs }]);
          onWait({ what, holders, waitedMs: (row.secs ?? 0) * 1000 });
        }
      })
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
