// Test support for other packages' tests (the `./testing` export; never built into dist).
export { baseStack, type Stack } from './rule-tester.ts';
export { SEED_DEFECT_CODES, seedDefects } from './seed-defects.ts';
