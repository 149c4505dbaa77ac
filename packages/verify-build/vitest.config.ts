import { engineProjects } from '@bvl/test-support/test-engines';
import { defineConfig } from 'vitest/config';

// isolate: false — a worker keeps its module cache between test files (no test mocks modules or
// relies on fresh module state; each file opens its own database): about half the suite's CPU.
const bounds = { testTimeout: 60_000, hookTimeout: 120_000, isolate: false };

// The suite runs on embedded PGlite, and a second time on PostgreSQL when DATABASE_URL is set, so
// both engines are proven in one `npm test`; BVL_TEST_ENGINES narrows it to one (test-engines.mjs).
export default defineConfig({
  test: {
    projects: engineProjects(
      { include: ['src/**/*.test.ts'], ...bounds },
      // One migrated PGlite is built once and dumped; every test file starts its own database from it.
      { pglite: { globalSetup: ['./test/global-setup.js'] } },
    ),
  },
});
