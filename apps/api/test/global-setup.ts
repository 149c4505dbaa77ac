// One migrated PGlite per run, dumped; every test file starts from it (the platform's own setup).
export { default } from '@bvl/platform/testing/global-setup';
