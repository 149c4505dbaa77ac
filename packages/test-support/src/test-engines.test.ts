import { describe, expect, it } from 'vitest';
import { testEngines } from './test-engines.mjs';

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
