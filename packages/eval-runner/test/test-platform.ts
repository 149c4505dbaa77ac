// Test support: the platform's own (PGlite from the migrated dump, or PostgreSQL from DATABASE_URL;
// a fresh tenant per test), on the fixed clock every golden publish runs on.
import type { Platform } from '@bvl/platform';
import { openTestPlatform as openPlatformUnderTest } from '@bvl/platform/testing';

export { ENGINE, tenants } from '@bvl/platform/testing';

/** The clock every golden publish runs on, so CEL dates in seeds land on fixed days. */
export const TEST_NOW = new Date('2026-03-15T10:00:00Z');

/** Opens the platform under test on the fixed clock. */
export function openTestPlatform(): Promise<Platform> {
  return openPlatformUnderTest(() => TEST_NOW);
}
