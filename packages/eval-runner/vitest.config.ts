import { testEngines } from '@bvl/test-support/test-engines';
import { defineConfig } from 'vitest/config';

// isolate: false — a worker keeps its module cache between test files (no test mocks modules or
// relies on fresh module state; each file opens its own database): about half the suite's CPU.
// CI runs every package's suite at once on a shared 2-core machine: bounds are generous, not tight.
const bounds = { testTimeout: 120_000, hookTimeout: 120_000, isolate: false };
// Suites that touch a database; the pure ones run once, in the pglite project.
const DATABASE_SUITES = [
  'src/collect-evidence.test.ts',
  'src/golden-publish.test.ts',
  'src/run-evals.test.ts',
  'src/run-record-case.test.ts',
  'src/run-openai-agent.test.ts',
  'src/openai-agent.e2e.test.ts',
];
// The job queue is pg-boss, which needs PostgreSQL: it runs in the postgres project only.
const POSTGRES_ONLY = ['src/run-eval-queue.test.ts'];

// The database suites run on embedded PGlite, and a second time on PostgreSQL when DATABASE_URL is
// set, so the golden suite is proven on both engines in one `npm test`. BVL_TEST_ENGINES
// (test-engines.mjs) narrows it to one engine, whose project then runs every suite.
const engines = testEngines();

export default defineConfig({
  test: {
    projects: [
      ...(engines.pglite
        ? [
            {
              test: {
                name: 'pglite',
                include: ['src/**/*.test.ts'],
                exclude: POSTGRES_ONLY,
                env: { BVL_TEST_ENGINE: 'pglite' },
                // One migrated PGlite is built once and dumped; every database suite starts its own database from it.
                globalSetup: ['./test/global-setup.js'],
                ...bounds,
              },
            },
          ]
        : []),
      ...(engines.postgres
        ? [
            {
              test: {
                name: 'postgres',
                include: engines.pglite ? [...DATABASE_SUITES, ...POSTGRES_ONLY] : ['src/**/*.test.ts'],
                env: { BVL_TEST_ENGINE: 'postgres' },
                ...bounds,
              },
            },
          ]
        : []),
    ],
  },
});
