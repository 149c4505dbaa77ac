import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectStack } from '@bvl/metadata';
import { EXHAUSTIVE, generateStack } from '@bvl/test-support';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, useTestPlatform } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { readExistingSchema } from './run-ddl.ts';
import { listDrafts, stageDrafts } from './run-drafts.ts';
import { readLockTable } from './run-lock-table.ts';
import { publishPackage } from './run-publish.ts';

// Issue 21: a publish whose tables need more locks than one transaction may take (lockBudget)
// builds what it can ahead, in transactions under the budget, then switches in one short
// transaction. The promises of a small publish hold: all or nothing, the previous state unchanged
// on failure, a cancel rolls it back, a killed one is cleaned up by the next.

let platform: Platform;
const made = useTestPlatform(
  (p) => {
    platform = p;
  },
  () => new Date('2026-03-15T10:00:00Z'),
);

const stack = (doc: unknown) => collectStack(doc, { draft: true });
const activeRows = (tenant: string) =>
  platform.db
    .selectFrom('bvl.metadata_items')
    .select(['type', 'name', 'version', 'content_hash'])
    .where('tenant_id', '=', tenant)
    .where('state', '=', 'active')
    .orderBy('type')
    .orderBy('name')
    .execute();
const stagingRows = async (tenant: string) =>
  Number((await sql<{ n: number }>`select count(*)::int as n from bvl.publish_staging where tenant_id = ${tenant}`.execute(platform.db)).rows[0]?.n);
const tableCount = async (tenant: string) =>
  Number(
    (
      await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${tenantSchema(tenant)} and c.relkind = 'r'`.execute(platform.db)
    ).rows[0]?.n,
  );

const v1 = {
  objects: [
    { name: 'acct', fields: { name: { type: 'text' }, size: { type: 'text' } } },
    { name: 'region', fields: { name: { type: 'text' } } },
  ],
  data: [{ object: 'acct', externalId: 'name', records: [{ name: 'A', size: '12' }] }],
};
// New tables with lookups among them and to old ones, a unique and a NOT NULL field on a new
// table, new columns (a lookup, a unique one) on an old table, and a type change (the switch's).
const v2 = {
  objects: [
    {
      name: 'acct',
      fields: {
        name: { type: 'text' },
        size: { type: 'number' },
        tier: { type: 'select', options: ['a'] },
        region: { type: 'lookup', reference: 'region' },
        code: { type: 'text', unique: true },
      },
    },
    { name: 'region', fields: { name: { type: 'text' } } },
    { name: 'deal', fields: { name: { type: 'text' }, acct: { type: 'lookup', reference: 'acct' }, ref: { type: 'text', unique: true } } },
    {
      name: 'line',
      fields: { name: { type: 'text', storage: { notNull: true } }, deal: { type: 'lookup', reference: 'deal', deleteBehavior: 'cascade' } },
    },
  ],
  data: [{ object: 'deal', externalId: 'name', records: [{ name: 'D', acct: 'A' }] }],
};

/** The generated package of `objects` objects (about 7 artifacts each: views, a dataset, a dashboard, a seed of 5 records). */
const generated = (objects: number) => generateStack(Math.round(objects * 7.01));

/** The same package with field `qty` a text in every object: a column type change in every generated table. */
function retyped(doc: Record<string, unknown[]>): Record<string, unknown[]> {
  const objects = (doc.objects as Array<{ fields: Record<string, unknown> }>).map((o) => ({ ...o, fields: { ...o.fields, qty: { type: 'text' } } }));
  return { ...doc, objects };
}

/** Publishes v1 then v2 into a new tenant with the budget given; returns the tenant. */
async function publishBoth(lockBudget: number | undefined): Promise<{ tenant: string; batches: number[] }> {
  const scope = { tenant: made.next('st'), package: 'app' };
  const batches: number[] = [];
  const options = { ...(lockBudget !== undefined ? { lockBudget } : {}), onStaged: (s: { batches: number }) => batches.push(s.batches) };
  await stageDrafts(platform, scope, stack(v1));
  expect((await publishPackage(platform, scope, options)).outcome).toBe('published');
  await stageDrafts(platform, scope, stack(v2));
  const r = await publishPackage(platform, scope, options);
  expect(r).toMatchObject({ outcome: 'published', seedApplied: { success: true, inserted: 1 } });
  return { tenant: scope.tenant, batches };
}

// `npm run test:exhaustive` runs only what it sizes up (the large publishes below): these tests take
// the same parameters in either run, and `npm test` (CI's PostgreSQL and PGlite legs) runs them.
describe.skipIf(EXHAUSTIVE)(`a publish over its lock budget (${ENGINE})`, () => {
  it('builds ahead in several transactions and ends with exactly the tables, keys and indexes one transaction makes', async () => {
    const whole = await publishBoth(undefined);
    const staged = await publishBoth(12);
    expect(whole.batches).toEqual([]);
    // Both publishes built ahead, each in more than one transaction.
    expect(staged.batches).toHaveLength(2);
    expect(staged.batches.every((b) => b > 1)).toBe(true);
    const a = await readExistingSchema(platform.db, tenantSchema(whole.tenant));
    const b = await readExistingSchema(platform.db, tenantSchema(staged.tenant));
    expect(b).toEqual(a);
    expect(b.tables.get('acct')!.columns.get('size')).toEqual({ base: 'numeric', array: false });
    expect(b.tables.get('line')!.notNull).toEqual(new Set(['id', 'name']));
    // A foreign key built ahead on an old table is validated (its column was empty).
    const invalid = await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_constraint c join pg_catalog.pg_namespace n on n.oid = c.connamespace
      where n.nspname = ${tenantSchema(staged.tenant)} and c.contype = 'f' and not c.convalidated`.execute(platform.db);
    expect(invalid.rows[0]?.n).toBe(0);
    expect(await activeRows(staged.tenant)).toEqual(await activeRows(whole.tenant));
    expect(await stagingRows(staged.tenant)).toBe(0);
  });

  it('a crash while building ahead leaves the previous published state: tables, metadata and drafts; what it built is dropped', async () => {
    const scope = { tenant: made.next('st'), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    const metaBefore = await activeRows(scope.tenant);
    await stageDrafts(platform, scope, stack(v2));
    const draftsBefore = await listDrafts(platform, scope);
    let ran = 0;
    const crashed = await publishPackage(platform, scope, {
      lockBudget: 20,
      afterDdlStep: (i) => {
        ran = i + 1;
        if (i === 6) throw new Error('injected crash after 7 DDL steps');
      },
    });
    expect(ran).toBe(7);
    expect(crashed).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/rolled back.*injected crash after 7 DDL steps/) });
    expect(await readExistingSchema(platform.db, tenantSchema(scope.tenant))).toEqual(schemaBefore);
    expect(await activeRows(scope.tenant)).toEqual(metaBefore);
    expect(await listDrafts(platform, scope)).toEqual(draftsBefore);
    expect(await stagingRows(scope.tenant)).toBe(0);
    expect((await publishPackage(platform, scope, { lockBudget: 20 })).outcome).toBe('published');
    expect(await stagingRows(scope.tenant)).toBe(0);
  });

  it('a crash in the switch, after everything was built ahead, rolls the switch back and drops what was built', async () => {
    const scope = { tenant: made.next('st'), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    const metaBefore = await activeRows(scope.tenant);
    await stageDrafts(platform, scope, stack(v2));
    let built = -1;
    const kinds: string[] = [];
    const crashed = await publishPackage(platform, scope, {
      lockBudget: 20,
      onStaged: (s) => (built = s.steps),
      afterDdlStep: (i, step) => {
        kinds.push(`${i}:${step.kind}`);
        // The first step of the switch: the type change of acct.size (its shadow column built ahead,
        // swapped in here), numbered on from those built ahead.
        if (i === built) throw new Error('injected crash in the switch');
      },
    });
    expect(built).toBeGreaterThan(5);
    expect(kinds.at(-1)).toBe(`${built}:swap_shadow_column`);
    expect(kinds.some((k) => k.endsWith(':add_shadow_column'))).toBe(true);
    expect(crashed).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/rolled back.*injected crash in the switch/) });
    expect(await readExistingSchema(platform.db, tenantSchema(scope.tenant))).toEqual(schemaBefore);
    expect(await activeRows(scope.tenant)).toEqual(metaBefore);
    expect(await stagingRows(scope.tenant)).toBe(0);
  });

  it('a republish refused after building ahead (rows a type change would lose) drops what it built', async () => {
    const scope = { tenant: made.next('st'), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    // A row a user wrote, which the seed does not own.
    await sql`insert into ${sql.id(tenantSchema(scope.tenant), 'acct')} (name, size) values ('B', 'big')`.execute(platform.db);
    const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    await stageDrafts(platform, scope, stack(v2));
    let staged = 0;
    const r = await publishPackage(platform, scope, { lockBudget: 20, onStaged: (s) => (staged = s.steps) });
    expect(staged).toBeGreaterThan(5);
    expect(r.outcome === 'refused' && r.issues.map((i) => [i.code, i.ref?.member])).toEqual([['data_loss_on_republish', 'size']]);
    expect(await readExistingSchema(platform.db, tenantSchema(scope.tenant))).toEqual(schemaBefore);
    expect(await stagingRows(scope.tenant)).toBe(0);
  });

  it('a cancel while building ahead: nothing published, nothing left', async () => {
    const scope = { tenant: made.next('st'), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    await stageDrafts(platform, scope, stack(v2));
    const abort = new AbortController();
    const r = await publishPackage(platform, scope, {
      lockBudget: 20,
      signal: abort.signal,
      afterDdlStep: (i) => {
        if (i === 3) abort.abort(new Error('the deadline passed'));
      },
    });
    expect(r).toMatchObject({ outcome: 'failed', cancelled: true });
    expect(await readExistingSchema(platform.db, tenantSchema(scope.tenant))).toEqual(schemaBefore);
    expect(await stagingRows(scope.tenant)).toBe(0);
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
  });

  it('what a killed publish built ahead (its bvl.publish_staging rows) is dropped by the next publish of the tenant, of any package', async () => {
    const scope = { tenant: made.next('st'), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    // What a process killed while building ahead leaves: a table, a column and an index, recorded.
    const s = tenantSchema(scope.tenant);
    await sql`create table ${sql.id(s, 'half_built')} (id text primary key)`.execute(platform.db);
    await sql`alter table ${sql.id(s, 'acct')} add column half text`.execute(platform.db);
    await sql`create index ix_half on ${sql.id(s, 'acct')} (size)`.execute(platform.db);
    await platform.db
      .insertInto('bvl.publish_staging')
      .values([
        { tenant_id: scope.tenant, package: 'app', kind: 'table', table_name: 'half_built', member: null },
        { tenant_id: scope.tenant, package: 'app', kind: 'column', table_name: 'acct', member: 'half' },
        { tenant_id: scope.tenant, package: 'app', kind: 'index', table_name: 'acct', member: 'ix_half' },
      ])
      .execute();
    await stageDrafts(platform, { tenant: scope.tenant, package: 'other' }, stack({ objects: [{ name: 'note', fields: { name: { type: 'text' } } }] }));
    expect((await publishPackage(platform, { tenant: scope.tenant, package: 'other' })).outcome).toBe('published');
    const after = await readExistingSchema(platform.db, s);
    expect([...after.tables.keys()].sort()).toEqual([...schemaBefore.tables.keys(), 'note'].sort());
    expect(after.tables.get('acct')).toEqual(schemaBefore.tables.get('acct'));
    expect(after.indexes.has('ix_half')).toBe(false);
    expect(await stagingRows(scope.tenant)).toBe(0);
  });
});

describe.skipIf(EXHAUSTIVE)(`the switch's locks (${ENGINE})`, () => {
  // What the publish transaction holds just before its commit (pg_locks, this backend): with the
  // tables built ahead, the metadata's locks and none per table; in one transaction, about 8 per table.
  const locksAtCommit = async (lockBudget: number): Promise<{ locks: number; relations: number }> => {
    const scope = { tenant: made.next('lk'), package: 'app' };
    await stageDrafts(platform, scope, collectStack(generated(60), { draft: true }));
    let held = { locks: 0, relations: 0 };
    const r = await publishPackage(platform, scope, {
      lockBudget,
      beforeCommit: async (trx) => {
        const row = (
          await sql<{ locks: number; relations: number }>`select count(*)::int as locks,
            count(*) filter (where l.locktype = 'relation' and n.nspname = ${tenantSchema(scope.tenant)})::int as relations
            from pg_catalog.pg_locks l left join pg_catalog.pg_class c on c.oid = l.relation left join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            where l.pid = pg_backend_pid()`.execute(trx)
        ).rows[0]!;
        held = row;
      },
    });
    expect(r.outcome).toBe('published');
    return held;
  };

  it('60 new tables built ahead: the switch holds no lock on a tenant table (under 100 locks in all); one transaction holds about 8 per table', async () => {
    const whole = await locksAtCommit(1_000_000);
    const staged = await locksAtCommit(100);
    // 939 on PostgreSQL 15, 504 of them on the tenant's tables.
    expect(whole.locks).toBeGreaterThan(60 * 6);
    expect(staged.relations).toBe(0);
    // What it holds is the metadata's tables and indexes and the catalogs (59 on PostgreSQL 15), whatever the package's size.
    expect(staged.locks).toBeLessThan(100);
  });
});

describe.runIf(ENGINE === 'postgres')('a large publish on PostgreSQL', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bvl-staged-'));
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  // SIGKILL while it builds ahead: the previous state serves, the next publish completes it. Every
  // run kills a 150-object publish under a 200-lock budget; test:exhaustive kills a 2,000-object one
  // at the default budget (max_locks_per_transaction 64), and the next publish, the package's 2,000
  // tables whole at the server settings, is its sized publish: the republish below starts from it
  // (a 2,000-object publish takes over a minute on a loaded 2-core machine; each is made once).
  const objects = EXHAUSTIVE ? 2000 : 150;
  let large: { tenant: string; doc: Record<string, unknown[]> } | undefined;
  it(
    `SIGKILL while a ${objects}-object publish builds its tables: the previous state serves, and the next publish completes it`,
    async () => {
      const scope = { tenant: made.next('kill'), package: 'app' };
      await stageDrafts(platform, scope, stack(v1));
      expect((await publishPackage(platform, scope)).outcome).toBe('published');
      const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
      const metaBefore = await activeRows(scope.tenant);
      const tablesBefore = await tableCount(scope.tenant);
      const doc = generated(objects);
      // The old package's objects stay in the new version.
      (doc.objects as unknown[]).push(...v1.objects);
      const file = join(dir, 'stack.json');
      await writeFile(file, JSON.stringify(doc));
      child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', join(import.meta.dirname, '../test/publish-child.ts')], {
        env: { ...process.env, BVL_TENANT: scope.tenant, BVL_STACK_FILE: file, ...(EXHAUSTIVE ? {} : { BVL_LOCK_BUDGET: '200' }) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout?.on('data', (d) => {
        out += String(d);
      });
      const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
      // Kill it once it has built a third of the new tables (several of its transactions committed).
      const deadline = Date.now() + 300_000;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`the child never built a third of its tables; it printed: ${out}`);
        if ((await tableCount(scope.tenant)) >= tablesBefore + objects / 3) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGKILL');
      await exited;
      expect(out).toBe('staged\n');
      // The previous state serves: its metadata, its tables as they were, its rows.
      expect(await activeRows(scope.tenant)).toEqual(metaBefore);
      const rows = await sql<{ name: string; size: string }>`select name, size from ${sql.id(tenantSchema(scope.tenant), 'acct')}`.execute(platform.db);
      expect(rows.rows).toEqual([{ name: 'A', size: '12' }]);
      const now = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
      for (const [name, table] of schemaBefore.tables) expect(now.tables.get(name), name).toEqual(table);
      // What it built is recorded, and the next publish drops it, then completes the publish.
      expect(await stagingRows(scope.tenant)).toBeGreaterThan(0);
      const next = await publishPackage(platform, scope);
      // Every generated object's seed (5 records each) is new; v1's record stays as it was.
      expect(next).toMatchObject({ outcome: 'published', seedApplied: { success: true, inserted: objects * 5 } });
      expect(await stagingRows(scope.tenant)).toBe(0);
      expect(await tableCount(scope.tenant)).toBe(tablesBefore + objects);
      expect(await listDrafts(platform, scope)).toEqual([]);
      large = { tenant: scope.tenant, doc };
    },
    EXHAUSTIVE ? 900_000 : 120_000,
  );

  // A column type change in every one of 2,000 tables: as ALTER … TYPE in the switch, tens of
  // thousands of locks in one transaction, more than a default lock table (6,400) holds. Built
  // ahead as shadow columns, the switch only swaps them in (about 3 locks a table): it publishes.
  // It republishes the package the test above published (run-publish-lock-table.test.ts kills
  // smaller such republishes in their switch).
  it.runIf(EXHAUSTIVE)(
    'a republish changing a column of each of 2,000 tables publishes at the server settings, its switch within the lock table',
    async () => {
      if (!large) throw new Error('the 2,000-object publish above did not complete: nothing to republish');
      const table = await readLockTable(platform.db);
      const scope = { tenant: large.tenant, package: 'app' };
      const schema = tenantSchema(scope.tenant);
      await sql`update ${sql.id(schema, 'gen_obj_1999')} set qty = 12.5`.execute(platform.db);
      await stageDrafts(platform, scope, stack(retyped(large.doc)));
      let held = 0;
      const r = await publishPackage(platform, scope, {
        beforeCommit: async (trx) => {
          held = Number((await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_locks where pid = pg_backend_pid()`.execute(trx)).rows[0]?.n);
        },
      });
      expect(r.outcome).toBe('published');
      expect(held).toBeLessThan(table.capacity);
      expect(await stagingRows(scope.tenant)).toBe(0);
      const col = await readExistingSchema(platform.db, schema);
      expect(col.tables.get('gen_obj_1999')!.columns.get('qty')).toEqual({ base: 'text', array: false });
      expect([...(col.tables.get('gen_obj_1999')!.shadows ?? new Map()).keys()]).toEqual([]);
      const rows = await sql<{ qty: string }>`select distinct qty from ${sql.id(schema, 'gen_obj_1999')}`.execute(platform.db);
      expect(rows.rows).toEqual([{ qty: '12.5' }]);
    },
    900_000,
  );
});
