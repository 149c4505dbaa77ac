import { defineConfig } from 'vitest/config';

// isolate: false — a worker keeps its module cache between test files (no test mocks modules or
// relies on fresh module state; each file opens its own database): about half the suite's CPU.
// CI runs every package's suite at once on a shared 2-core machine: bounds are generous, not tight.
export default defineConfig({ test: { testTimeout: 60_000, hookTimeout: 120_000, isolate: false } });
