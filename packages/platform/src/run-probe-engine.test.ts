import { collectStack, type Graph } from '@bvl/metadata';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, useTestPlatform } from '../test/test-platform.ts';
import type { PlatformContext } from './database.ts';
import { tenantSchema } from './identifier.ts';
import { MAX_READ_ONLY_POOLS, type Platform } from './open-platform.ts';
import { stageDrafts } from './run-drafts.ts';
import { createProbeEngine } from './run-probe-engine.ts';
import { publishPackage } from './run-publish.ts';
import { readOnlyQuery, runReadOnly } from './run-read-only.ts';

let platform: Platform;
let graph: Graph;
let tenant: string;
const made = useTestPlatform((p) => {
  platform = p;
});

beforeAll(async () => {
  tenant = made.next();
  const doc = {
    objects: [{ name: 'task', fields: { title: { type: 'text' }, hours: { type: 'number' } } }],
    datasets: [{ name: 'm', object: 'task', dimensions: [{ name: 'title', field: 'title' }], measures: [{ name: 'n', aggregate: 'count' }] }],
    data: [
      {
        object: 'task',
        externalId: 'title',
        records: [
          { title: 'a', hours: 1 },
          { title: 'b', hours: 2 },
        ],
      },
    ],
  };
  await stageDrafts(platform, { tenant, package: 'app' }, collectStack(doc, { draft: true }));
  const r = await publishPackage(platform, { tenant, package: 'app' });
  if (r.outcome !== 'published') throw new Error(r.outcome);
  graph = r.graph;
});

/** A context whose database throws on any use: proves a call ran no SQL at all. */
const noSql: PlatformContext = {
  db: new Proxy(
    {},
    {
      get: () => {
        throw new Error('SQL was attempted');
      },
    },
  ) as PlatformContext['db'],
  now: () => new Date(),
  engine: 'postgres',
};

describe('probe engine', () => {
  it('counts, reads a view page and runs a dataset', async () => {
    const e = createProbeEngine(platform, { tenant, graph });
    expect(await e.countRows('task')).toEqual({ ok: true, value: 2 });
    expect(await e.readView('task', { columns: ['title'], sort: [{ field: 'hours', order: 'desc' }], limit: 1 })).toMatchObject({
      ok: true,
      value: { rows: 1 },
    });
    expect(await e.runDataset(graph.datasets.get('m')!, { measures: ['n'], dimensions: ['title'] })).toMatchObject({
      ok: true,
      value: { rows: 2, sql: expect.stringContaining(`"${tenantSchema(tenant)}"."task"`) },
    });
  });

  it('cannot write: a write on the probe path fails as read-only', async () => {
    const attempt = runReadOnly(platform, 1_000, (db) => sql`insert into ${sql.id(tenantSchema(tenant), 'task')} (title) values ('sneaky')`.execute(db));
    await expect(attempt).rejects.toThrow(/cannot execute INSERT in a read-only transaction/);
    const del = runReadOnly(platform, 1_000, (db) => sql`delete from ${sql.id(tenantSchema(tenant), 'task')}`.execute(db));
    await expect(del).rejects.toThrow(/read-only transaction/);
    expect(await createProbeEngine(platform, { tenant, graph }).countRows('task')).toEqual({ ok: true, value: 2 });
  });

  it('reports a column dropped under a view as a failed read, not a throw', async () => {
    await sql`alter table ${sql.id(tenantSchema(tenant), 'task')} add column scratch text`.execute(platform.db);
    await sql`alter table ${sql.id(tenantSchema(tenant), 'task')} drop column scratch`.execute(platform.db);
    const e = createProbeEngine(platform, { tenant, graph });
    expect(await e.readView('task', { columns: ['title'], sort: [{ field: 'scratch', order: 'asc' }], limit: 1 })).toMatchObject({
      ok: false,
      error: 'column "scratch" does not exist',
    });
  });

  it('refuses hostile names without running any SQL', async () => {
    const e = createProbeEngine(noSql, { tenant, graph });
    expect(await e.countRows('task"; drop table x; --')).toMatchObject({ ok: false, error: expect.stringMatching(/must be snake_case.*; not counted/) });
    expect(await e.countRows('a'.repeat(10_000))).toMatchObject({ ok: false, error: expect.stringMatching(/10000 characters/) });
    expect(await e.readView('task', { columns: ["title'"], limit: 1 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/refused before running SQL/),
    });
    expect(() => createProbeEngine(noSql, { tenant: 'x; drop', graph })).toThrow(/tenant/);
  });

  it.skipIf(ENGINE === 'pglite')('stops a statement at the timeout (PostgreSQL; PGlite cannot interrupt)', async () => {
    const slow = runReadOnly(platform, 100, (db) => sql`select pg_sleep(2)`.execute(db));
    await expect(slow).rejects.toThrow(/statement timeout/);
  });

  it('a probe read is one read-only statement with the timeout set (on PostgreSQL its own implicit transaction: no BEGIN before it)', async () => {
    const probe = sql<{
      ro: string;
      timeout: string;
      alone: boolean;
    }>`select current_setting('transaction_read_only') as ro, current_setting('statement_timeout') as timeout, now() = statement_timestamp() as alone`;
    const r = await readOnlyQuery(platform, 5_000, probe.compile(platform.db));
    expect(r.rows[0]).toMatchObject({ ro: 'on', timeout: '5s' });
    if (ENGINE === 'postgres') expect(r.rows[0]!.alone).toBe(true);
    const write = readOnlyQuery(platform, 1_000, sql`insert into ${sql.id(tenantSchema(tenant), 'task')} (title) values ('sneaky')`.compile(platform.db));
    await expect(write).rejects.toThrow(/cannot execute INSERT in a read-only transaction/);
    // The main pool is untouched: it still writes.
    await sql`update ${sql.id(tenantSchema(tenant), 'task')} set hours = hours where false`.execute(platform.db);
  });

  it.skipIf(ENGINE === 'pglite')('stops a one-statement probe at its timeout, and every timeout stays read-only past the pool limit', async () => {
    await expect(readOnlyQuery(platform, 100, sql`select pg_sleep(2)`.compile(platform.db))).rejects.toThrow(/statement timeout/);
    for (let i = 1; i <= MAX_READ_ONLY_POOLS + 2; i++) {
      const r = await readOnlyQuery(
        platform,
        2_000 + i,
        sql<{ ro: string; t: string }>`select current_setting('transaction_read_only') as ro, current_setting('statement_timeout') as t`.compile(platform.db),
      );
      expect(r.rows[0]).toEqual({ ro: 'on', t: `${2_000 + i}ms` });
    }
  });
});
