import { testEngines } from '@bvl/test-support/test-engines';
import { defineConfig } from 'vitest/config';

// isolate: false — a worker keeps its module cache between test files (no test mocks modules or
// relies on fresh module state; each file opens its own database): about half the suite's CPU.
const bounds = { testTimeout: 60_000, hookTimeout: 120_000, isolate: false };

// The suite runs on embedded PGlite, and a second time on PostgreSQL when DATABASE_URL is set, so
// both engines are proven in one `npm test`; BVL_TEST_ENGINES narrows it to one (test-engines.mjs).
// Tests that need a real server process or browser are in the same projects; they start what they
// need on 127.0.0.1.
const engines = testEngines();
const files = ['src/**/*.test.ts', 'test/**/*.test.ts'];

export default defineConfig({
  test: {
    projects: [
      ...(engines.pglite
        ? [{ test: { name: 'pglite', include: files, env: { BVL_TEST_ENGINE: 'pglite' }, globalSetup: ['./test/global-setup.ts'], ...bounds } }]
        : []),
      ...(engines.postgres ? [{ test: { name: 'postgres', include: files, env: { BVL_TEST_ENGINE: 'postgres' }, ...bounds } }] : []),
    ],
  },
});
