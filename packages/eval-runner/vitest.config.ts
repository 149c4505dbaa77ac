import { engineProjects } from '@bvl/test-support/test-engines';
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
export default defineConfig({
  test: {
    projects: engineProjects(
      { include: ['src/**/*.test.ts'], ...bounds },
      {
        // One migrated PGlite is built once and dumped; every database suite starts its own database from it.
        pglite: { exclude: POSTGRES_ONLY, globalSetup: ['./test/global-setup.js'] },
        onBoth: [...DATABASE_SUITES, ...POSTGRES_ONLY],
      },
    ),
  },
});
