import { defineConfig } from 'vitest/config';

// CI runs every package's suite at once on a shared 2-core machine: bounds are generous, not tight.
export default defineConfig({ test: { testTimeout: 60_000, hookTimeout: 120_000 } });
