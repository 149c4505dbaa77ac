import { sql } from 'kysely';
import type { PlatformContext } from './database.ts';
import type { PackageScope } from './scope.ts';

/** The advisory-lock key of a tenant's package: publishes of one package take it, in turn. */
export const packageLockKey = (scope: PackageScope): string => `bvl.publish:${scope.tenant}/${scope.package}`;

/**
 * Runs `fn` on one pinned connection holding the package's advisory lock for the whole of it, so
 * "replace the drafts, then publish them" is one step: a concurrent run of the same package waits
 * instead of publishing (or discarding) this run's drafts. publishPackage takes the same lock per
 * transaction; on the same session that is re-entrant.
 */
export async function withPackageLock<T>(ctx: PlatformContext, scope: PackageScope, fn: (pinned: PlatformContext) => Promise<T>): Promise<T> {
  return ctx.db.connection().execute(async (conn) => {
    const key = packageLockKey(scope);
    await sql`select pg_advisory_lock(hashtextextended(${key}, 0))`.execute(conn);
    try {
      return await fn({ ...ctx, db: conn });
    } finally {
      // If the session died, its locks died with it.
      await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(conn).catch(() => {});
    }
  });
}
