// Test support: a platform on PGlite (from the migrated dump) or on PostgreSQL (DATABASE_URL), as the
// vitest project says (vitest.config.ts), and a fresh tenant per test so parallel runs never share tables.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, inject } from 'vitest';
import { dropTenant, openPlatform, type Platform } from '../src/index.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite dump global-setup.ts writes once per run. */
    pgliteDump: string;
  }
}

/** Which engine the suite runs on. */
export const ENGINE: 'postgres' | 'pglite' = process.env.BVL_TEST_ENGINE === 'postgres' ? 'postgres' : 'pglite';

/** What else a test platform is opened with. */
export interface TestPlatformOptions {
  /**
   * PostgreSQL: the `application_name` of the pool's sessions, for a test that counts its own
   * sessions in pg_stat_activity (other test files run on the same database at the same time).
   */
  readonly applicationName?: string;
}

/** Opens the platform under test; `now` fixes the clock. */
export async function openTestPlatform(now?: () => Date, options: TestPlatformOptions = {}): Promise<Platform> {
  const url = process.env.DATABASE_URL;
  if (ENGINE === 'postgres') {
    if (!url) throw new Error('the postgres test project needs DATABASE_URL');
    return openPlatform({ databaseUrl: url, now, applicationName: options.applicationName });
  }
  const dump = inject('pgliteDump');
  return openPlatform({ dataDir: 'memory', loadDataDir: new Blob([await readFile(dump)]), now });
}

/** A tenant id no other run uses. */
export function uniqueTenant(label = 't'): string {
  return `${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Tracks the tenants a file creates and drops them at the end. */
export function tenants(platform: () => Platform) {
  const made: string[] = [];
  return {
    next(label?: string): string {
      const t = uniqueTenant(label);
      made.push(t);
      return t;
    },
    async dropAll(): Promise<void> {
      for (const t of made.splice(0)) await dropTenant(platform(), t);
    },
  };
}

/**
 * A test file's platform: opened before its tests (and handed to `set`), and after them the tenants
 * the returned tracker gave out are dropped and the platform closed. Call it at the file's top level.
 */
export function useTestPlatform(set: (platform: Platform) => void, now?: () => Date, options?: TestPlatformOptions): ReturnType<typeof tenants> {
  let platform: Platform | undefined;
  const made = tenants(() => platform!);
  beforeAll(async () => {
    platform = await openTestPlatform(now, options);
    set(platform);
  });
  afterAll(async () => {
    if (!platform) return;
    await made.dropAll();
    await platform.close();
  });
  return made;
}
