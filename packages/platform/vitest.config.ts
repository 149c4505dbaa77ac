import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One migrated PGlite is built once and dumped; every test file starts its own database from it.
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
