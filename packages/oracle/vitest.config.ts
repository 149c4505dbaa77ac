import { defineConfig } from 'vitest/config';

// The oracle tier runs alone (npm run test:oracle), never in npm test: it needs ObjectStack's packages.
export default defineConfig({ test: { testTimeout: 120_000, hookTimeout: 120_000 } });
