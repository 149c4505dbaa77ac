import { engineProjects } from '@bvl/test-support/test-engines';
import { defineConfig } from 'vitest/config';

// isolate: false — a worker keeps its module cache between test files (no test mocks modules or
// relies on fresh module state; each file opens its own database): about half the suite's CPU.
const bounds = { testTimeout: 120_000, hookTimeout: 120_000, isolate: false };

// Every command test runs on embedded PGlite; `bvl publish` runs a second time on PostgreSQL when
// DATABASE_URL is set, so both engines are proven in one `npm test`. BVL_TEST_ENGINES=postgres
// (test-engines.mjs) runs every command test that can reach PostgreSQL on it alone.
const onBoth = ['src/commands/publish*.test.ts', 'src/commands/build.test.ts', 'src/commands/eval.test.ts', 'src/commands/eval-process.test.ts'];
// The commands these run on the embedded database of a temporary folder, whatever the engine (no
// DATABASE_URL reaches them): the postgres project leaves them to the pglite one. CI's PostgreSQL
// leg ran them on PGlite a second time, proving nothing about PostgreSQL: ~100 s of CPU, two thirds
// of the package's there.
const embedded = [
  'src/commands/eval-openai.test.ts',
  'src/commands/mcp.test.ts',
  'src/commands/policy.test.ts',
  'src/commands/serve.test.ts',
  'src/commands/token.test.ts',
];

export default defineConfig({
  test: {
    projects: engineProjects({ include: ['src/**/*.test.ts'], ...bounds }, { onBoth, embedded }),
  },
});
