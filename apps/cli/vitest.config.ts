import { engineProjects } from '@bvl/test-support/test-engines';
import { defineConfig } from 'vitest/config';

// isolate: false — a worker keeps its module cache between test files (no test mocks modules or
// relies on fresh module state; each file opens its own database): about half the suite's CPU.
const bounds = { testTimeout: 120_000, hookTimeout: 120_000, isolate: false };

// Every command test runs on embedded PGlite; `bvl publish` runs a second time on PostgreSQL when
// DATABASE_URL is set, so both engines are proven in one `npm test`. BVL_TEST_ENGINES=postgres
// (test-engines.mjs) runs every command test on PostgreSQL alone.
const onBoth = ['src/commands/publish*.test.ts', 'src/commands/build.test.ts', 'src/commands/eval.test.ts', 'src/commands/eval-process.test.ts'];

export default defineConfig({
  test: {
    projects: engineProjects({ include: ['src/**/*.test.ts'], ...bounds }, { onBoth }),
  },
});
