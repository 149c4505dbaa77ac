import { describe, expect, it } from 'vitest';
import { configDefaults } from 'vitest/config';
import { engineProjects, testEngines } from './test-engines.mjs';

const URL = 'postgres://postgres@127.0.0.1:5432/test';

describe('testEngines', () => {
  it('runs PGlite always and PostgreSQL when DATABASE_URL is set, unless BVL_TEST_ENGINES narrows it', () => {
    expect(testEngines({})).toEqual({ pglite: true, postgres: false });
    expect(testEngines({ DATABASE_URL: URL })).toEqual({ pglite: true, postgres: true });
    expect(testEngines({ DATABASE_URL: URL, BVL_TEST_ENGINES: 'postgres' })).toEqual({ pglite: false, postgres: true });
    expect(testEngines({ DATABASE_URL: URL, BVL_TEST_ENGINES: ' PGlite ' })).toEqual({ pglite: true, postgres: false });
    expect(testEngines({ DATABASE_URL: URL, BVL_TEST_ENGINES: 'pglite,postgres' })).toEqual({ pglite: true, postgres: true });
    expect(testEngines({ BVL_TEST_ENGINES: '' })).toEqual({ pglite: true, postgres: false });
  });

  it('refuses an unknown engine, an empty list, and postgres without DATABASE_URL, naming the fix', () => {
    expect(() => testEngines({ BVL_TEST_ENGINES: 'mysql' })).toThrow(/unknown engine mysql; use a comma list of pglite, postgres/);
    expect(() => testEngines({ BVL_TEST_ENGINES: ',' })).toThrow(/unknown engine \(none\)/);
    expect(() => testEngines({ BVL_TEST_ENGINES: 'postgres' })).toThrow(/DATABASE_URL is not set: set it/);
  });
});

describe('engineProjects', () => {
  const test = { include: ['src/**/*.test.ts'], testTimeout: 60_000 };
  const pglite = { globalSetup: ['./test/global-setup.js'] };

  it('gives one project per engine, the pglite one with its own options, the postgres one onBoth only when both run', () => {
    expect(engineProjects(test, { pglite, onBoth: ['src/db.test.ts'], env: {} })).toEqual([
      {
        test: {
          name: 'pglite',
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
          globalSetup: ['./test/global-setup.js'],
          env: { BVL_TEST_ENGINE: 'pglite' },
        },
      },
    ]);
    expect(engineProjects(test, { pglite, onBoth: ['src/db.test.ts'], env: { DATABASE_URL: URL } })).toEqual([
      {
        test: {
          name: 'pglite',
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
          globalSetup: ['./test/global-setup.js'],
          env: { BVL_TEST_ENGINE: 'pglite' },
        },
      },
      { test: { name: 'postgres', include: ['src/db.test.ts'], testTimeout: 60_000, env: { BVL_TEST_ENGINE: 'postgres' } } },
    ]);
    expect(engineProjects(test, { pglite, onBoth: ['src/db.test.ts'], env: { DATABASE_URL: URL, BVL_TEST_ENGINES: 'postgres' } })).toEqual([
      { test: { name: 'postgres', include: ['src/**/*.test.ts'], testTimeout: 60_000, env: { BVL_TEST_ENGINE: 'postgres' } } },
    ]);
    expect(engineProjects(test, { env: { DATABASE_URL: URL } }).map((p) => p.test.include)).toEqual([['src/**/*.test.ts'], ['src/**/*.test.ts']]);
  });

  it('leaves the embedded files (PGlite whatever the engine) out of the postgres project alone', () => {
    const embedded = ['src/commands/serve.test.ts'];
    const [lite, pg] = engineProjects(test, { embedded, env: { DATABASE_URL: URL } });
    expect(lite!.test.exclude).toBeUndefined();
    expect(pg!.test).toMatchObject({ include: ['src/**/*.test.ts'], exclude: [...configDefaults.exclude, ...embedded] });
    // The postgres leg alone (CI's): the embedded files run in the PGlite leg, not here.
    expect(engineProjects(test, { embedded, env: { DATABASE_URL: URL, BVL_TEST_ENGINES: 'postgres' } })).toEqual([
      {
        test: {
          name: 'postgres',
          include: ['src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...embedded],
          testTimeout: 60_000,
          env: { BVL_TEST_ENGINE: 'postgres' },
        },
      },
    ]);
    // A suite's own exclude is kept.
    expect(engineProjects({ ...test, exclude: ['x'] }, { embedded, env: { DATABASE_URL: URL } })[1]!.test.exclude).toEqual(['x', ...embedded]);
  });
});
