// Test support: a platform on PGlite (from the migrated dump) or on PostgreSQL (DATABASE_URL), as the
// vitest project says (vitest.config.ts), and a fresh tenant per test so parallel runs never share tables.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dropTenant, openPlatform, type Platform } from '@bvl/platform';
import { inject } from 'vitest';

/** Which engine the suite runs on. */
export const ENGINE: 'postgres' | 'pglite' = process.env.BVL_TEST_ENGINE === 'postgres' ? 'postgres' : 'pglite';

/** The clock every golden publish runs on, so CEL dates in seeds land on fixed days. */
export const TEST_NOW = new Date('2026-03-15T10:00:00Z');

/** Opens the platform under test on the fixed clock. */
export async function openTestPlatform(): Promise<Platform> {
  const url = process.env.DATABASE_URL;
  const now = () => TEST_NOW;
  if (ENGINE === 'postgres') {
    if (!url) throw new Error('the postgres test project needs DATABASE_URL');
    return openPlatform({ databaseUrl: url, now });
  }
  const dump = inject('pgliteDump');
  return openPlatform({ dataDir: 'memory', loadDataDir: new Blob([await readFile(dump)]), now });
}

/** Tracks the tenants a file creates and drops them at the end. */
export function tenants(platform: () => Platform) {
  const made: string[] = [];
  return {
    next(label = 't'): string {
      const t = `${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
      made.push(t);
      return t;
    },
    async dropAll(): Promise<void> {
      for (const t of made.splice(0)) await dropTenant(platform(), t);
    },
  };
}
