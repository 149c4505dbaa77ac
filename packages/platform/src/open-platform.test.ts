import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ENGINE } from '../test/test-platform.ts';
import { DATA_DIR_LOCK, dumpPglite, openPlatform, platformOptionsFromEnv, setNewDataDirTemplate } from './open-platform.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe.runIf(ENGINE === 'pglite')('openPlatform on a PGlite data folder', () => {
  it('holds the folder: a second open is refused with a clear message until the first closes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bvl-lock-'));
    dirs.push(dir);
    // The new folder starts from the suite's migrated dump: the lock is under test here, not initdb (seconds).
    const newDataDirTemplate = new Blob([await readFile(inject('pgliteDump'))]);
    const first = await openPlatform({ dataDir: dir, newDataDirTemplate });
    expect(existsSync(join(dir, DATA_DIR_LOCK))).toBe(true);
    await expect(openPlatform({ dataDir: dir, newDataDirTemplate })).rejects.toThrow(/in use by process \d+ .*single-process/);
    await first.close();
    expect(existsSync(join(dir, DATA_DIR_LOCK))).toBe(false);
    const second = await openPlatform({ dataDir: dir, newDataDirTemplate });
    await second.close();
  });
});

describe.runIf(ENGINE === 'pglite')('setNewDataDirTemplate', () => {
  it('a new folder starts from the registered template, loaded only then; an explicit template wins', async () => {
    const dump = new Blob([await readFile(inject('pgliteDump'))]);
    // A template told apart from PGlite's initdb: a table of its own.
    const seed = await openPlatform({ dataDir: 'memory', loadDataDir: dump });
    await sql`create table public.from_template (id int)`.execute(seed.db);
    const marked = await dumpPglite(seed);
    await seed.close();
    const hasMark = async (dir: string) => {
      const p = await openPlatform({ dataDir: dir });
      try {
        return (await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_tables where tablename = 'from_template'`.execute(p.db)).rows[0]!.n === 1;
      } finally {
        await p.close();
      }
    };
    let loads = 0;
    setNewDataDirTemplate(async () => {
      loads++;
      return marked;
    });
    try {
      const dir = await mkdtemp(join(tmpdir(), 'bvl-template-'));
      dirs.push(dir);
      expect(await hasMark(dir)).toBe(true);
      // Opened again: no longer new, the template is not read.
      expect(await hasMark(dir)).toBe(true);
      expect(loads).toBe(1);
      const explicit = await mkdtemp(join(tmpdir(), 'bvl-template-'));
      dirs.push(explicit);
      await (await openPlatform({ dataDir: explicit, newDataDirTemplate: dump })).close();
      expect(loads).toBe(1);
      expect(await hasMark(explicit)).toBe(false);
    } finally {
      setNewDataDirTemplate(undefined);
    }
  });
});

describe.runIf(ENGINE === 'postgres')('openPlatform on PostgreSQL', () => {
  it('a server that kills the connection mid-query rejects that query; the process survives and the pool recovers', async () => {
    const url = process.env.DATABASE_URL!;
    const platform = await openPlatform({ databaseUrl: url });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const tag = `bvl_kill_${process.pid}_${Date.now()}`;
      const sleeping = sql`select pg_sleep(30) as ${sql.id(tag)}`.execute(platform.db).then(
        () => undefined,
        (e: Error) => e,
      );
      let killed = 0;
      for (let i = 0; i < 50 && killed === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const r = await admin.query(
          `select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity where query like $1 and pid <> pg_backend_pid()) t`,
          [`%${tag}%`],
        );
        killed = r.rows[0].n;
      }
      expect(killed).toBe(1);
      expect((await sleeping)?.message).toMatch(/terminat/i);
      // The dead client leaves the pool once its socket closes; within a few tries queries work again.
      let one: number | undefined;
      for (let i = 0; i < 10 && one === undefined; i++) {
        one = await sql<{ one: number }>`select 1 as one`.execute(platform.db).then(
          (r) => r.rows[0]!.one,
          () => undefined,
        );
        if (one === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      expect(one).toBe(1);
    } finally {
      await admin.end();
      await platform.close();
    }
  });
});

describe('platformOptionsFromEnv', () => {
  it('takes DATABASE_URL first, then the --data-dir flag, then BVL_DATA_DIR, then <cwd>/.bvl/data', () => {
    expect(platformOptionsFromEnv({ DATABASE_URL: 'postgres://x/y', BVL_DATA_DIR: 'd' }, '/w', 'f')).toEqual({ databaseUrl: 'postgres://x/y' });
    expect(platformOptionsFromEnv({ BVL_DATA_DIR: 'env-dir' }, '/w', 'flag-dir')).toEqual({ dataDir: '/w/flag-dir' });
    expect(platformOptionsFromEnv({ BVL_DATA_DIR: 'env-dir' }, '/w')).toEqual({ dataDir: '/w/env-dir' });
    expect(platformOptionsFromEnv({ BVL_DATA_DIR: '/abs/dir' }, '/w')).toEqual({ dataDir: '/abs/dir' });
    expect(platformOptionsFromEnv({}, '/w')).toEqual({ dataDir: '/w/.bvl/data' });
  });
});
