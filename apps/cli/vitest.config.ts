import { defineConfig } from 'vitest/config';

// isolate: false — a worker keeps its module cache between test files (no test mocks modules or
// relies on fresh module state; each file opens its own database): about half the suite's CPU.
const bounds = { testTimeout: 120_000, hookTimeout: 120_000, isolate: false };

// Every command test runs on embedded PGlite; `bvl publish` runs a second time on PostgreSQL when
// DATABASE_URL is set (CI sets it), so both engines are proven in one `npm test`.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'pglite', include: ['src/**/*.test.ts'], env: { BVL_TEST_ENGINE: 'pglite' }, ...bounds } },
      ...(process.env.DATABASE_URL
        ? [
            {
              test: {
                name: 'postgres',
                include: ['src/commands/publish*.test.ts', 'src/commands/build.test.ts', 'src/commands/eval.test.ts', 'src/commands/eval-process.test.ts'],
                env: { BVL_TEST_ENGINE: 'postgres' },
                ...bounds,
              },
            },
          ]
        : []),
    ],
  },
});
