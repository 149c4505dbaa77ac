// Which database engines a suite runs on. Plain JavaScript: the packages' vitest configs import it.
// By default every database suite runs on embedded PGlite, and a second time on PostgreSQL when
// DATABASE_URL is set. BVL_TEST_ENGINES (a comma list of `pglite`, `postgres`) narrows that: CI runs
// its first Node on PostgreSQL only and its second on PGlite only, so each engine and each Node runs
// the whole suite once. With one engine, its project runs every test file (the pure ones too), but
// for the files a suite names `embedded`: they open embedded PGlite whatever the engine (a command's
// own data folder under a temporary cwd), so the postgres project never runs them — it would run
// them on PGlite a second time and prove nothing about PostgreSQL.

import { configDefaults } from 'vitest/config';

const KNOWN = ['pglite', 'postgres'];

/**
 * The engines to run: `{ pglite, postgres }`. Throws, naming the fix, on an unknown engine or on
 * `postgres` without DATABASE_URL.
 * @param {Record<string, string | undefined>} [env]
 * @returns {{ pglite: boolean, postgres: boolean }}
 */
export function testEngines(env = process.env) {
  const hasUrl = env.DATABASE_URL !== undefined && env.DATABASE_URL !== '';
  const listed = env.BVL_TEST_ENGINES?.trim();
  if (!listed) return { pglite: true, postgres: hasUrl };
  const names = listed
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  const unknown = names.filter((n) => !KNOWN.includes(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(
      `BVL_TEST_ENGINES=${listed}: unknown engine ${unknown.join(', ') || '(none)'}; use a comma list of ${KNOWN.join(', ')}, or unset it for both`,
    );
  }
  if (names.includes('postgres') && !hasUrl) {
    throw new Error(
      `BVL_TEST_ENGINES=${listed} names postgres but DATABASE_URL is not set: set it (postgres://user@host:5432/db) or drop postgres from the list`,
    );
  }
  return { pglite: names.includes('pglite'), postgres: names.includes('postgres') };
}

/**
 * The vitest `projects` of a database suite, one per engine testEngines() picks: `pglite` and
 * `postgres`, each with `env.BVL_TEST_ENGINE` naming its engine and the options in `test` (include,
 * exclude, timeouts, isolate) besides.
 * @param {Record<string, unknown>} test what both projects share (include, bounds)
 * @param {{ pglite?: Record<string, unknown>, onBoth?: string[], embedded?: string[], env?: Record<string, string | undefined> }} [options]
 *   `pglite`: options of the pglite project alone (its globalSetup, an exclude); `onBoth`: when both
 *   engines run, the files the postgres project runs (by default, all of them); `embedded`: files
 *   that run on embedded PGlite whatever the engine, which the postgres project leaves out; `env`:
 *   for testEngines.
 * @returns {{ test: Record<string, unknown> }[]}
 */
export function engineProjects(test, { pglite = {}, onBoth, embedded = [], env = process.env } = {}) {
  const engines = testEngines(env);
  const exclude = embedded.length > 0 ? { exclude: [...(test.exclude ?? configDefaults.exclude), ...embedded] } : {};
  return [
    ...(engines.pglite ? [{ test: { name: 'pglite', ...test, ...pglite, env: { BVL_TEST_ENGINE: 'pglite' } } }] : []),
    ...(engines.postgres
      ? [
          {
            test: {
              name: 'postgres',
              ...test,
              ...(engines.pglite && onBoth ? { include: onBoth } : {}),
              ...exclude,
              env: { BVL_TEST_ENGINE: 'postgres' },
            },
          },
        ]
      : []),
  ];
}
