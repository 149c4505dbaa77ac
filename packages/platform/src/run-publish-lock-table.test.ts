import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectStack } from '@bvl/metadata';
import { EXHAUSTIVE, generateStack } from '@bvl/test-support';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, useTestPlatform } from '../test/test-platform.ts';
import type { SchemaStep } from './diff-schema.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { applySchemaSteps, readExistingSchema } from './run-ddl.ts';
import { listDrafts, stageDrafts, stageTombstones } from './run-drafts.ts';
import { readLockTable, readRelationCounts } from './run-lock-table.ts';
import { publishPackage } from './run-publish.ts';
import { countSwitchLocks, type LockTable, SWITCH_BASE_LOCKS } from './switch-locks.ts';

// Issue 21: a publish switches to its new state in one transaction, which locks every existing
// table it changes. One that would take more locks than the server's lock table holds is refused
// before any change (with the remedy), not rolled back with "out of shared memory" after minutes.

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

/** A lock table of `capacity` locks, as a server configured so would report it. */
const small = (capacity: number): LockTable => ({ maxLocksPerTransaction: 1, maxConnections: capacity, maxPreparedTransactions: 0, capacity });

/** The generated package of `objects` objects (about 7 artifacts each, a 5-record seed per object). */
const generated = (objects: number) => generateStack(Math.round(objects * 7.01));
/** The same package with field `qty` a text in every object: a column type change in every table. */
function retyped(doc: Record<string, unknown[]>): Record<string, unknown[]> {
  const objects = (doc.objects as Array<{ fields: Record<string, unknown> }>).map((o) => ({ ...o, fields: { ...o.fields, qty: { type: 'text' } } }));
  return { ...doc, objects };
}

const v1 = {
  objects: [
    { name: 'acct', fields: { name: { type: 'text' }, size: { type: 'text' } } },
    { name: 'region', fields: { name: { type: 'text' } } },
    { name: 'deal', fields: { name: { type: 'text' }, acct: { type: 'lookup', reference: 'acct' } } },
  ],
  data: [{ object: 'acct', externalId: 'name', records: [{ name: 'A', size: '12' }] }],
};
// A type change and NOT NULL on old tables, and a new table.
const v2 = {
  objects: [
    { name: 'acct', fields: { name: { type: 'text', storage: { notNull: true } }, size: { type: 'number' } } },
    { name: 'region', fields: { name: { type: 'text' }, code: { type: 'number' } } },
    { name: 'deal', fields: { name: { type: 'text' }, acct: { type: 'lookup', reference: 'acct' } } },
    { name: 'line', fields: { name: { type: 'text' } } },
  ],
};

// `npm run test:exhaustive` runs only what it sizes up (the large publishes below): these tests take
// the same parameters in either run, and `npm test` (CI's PostgreSQL and PGlite legs) runs them.
describe.skipIf(EXHAUSTIVE)(`the server's lock table (${ENGINE})`, () => {
  it('is read from the server: max_locks_per_transaction × (max_connections + max_prepared_transactions)', async () => {
    const t = await readLockTable(platform.db);
    const s = await sql<{ l: string; c: string; p: string }>`select current_setting('max_locks_per_transaction') as l,
      current_setting('max_connections') as c, current_setting('max_prepared_transactions') as p`.execute(platform.db);
    const row = s.rows[0]!;
    expect(t).toEqual({
      maxLocksPerTransaction: Number(row.l),
      maxConnections: Number(row.c),
      maxPreparedTransactions: Number(row.p),
      capacity: Number(row.l) * (Number(row.c) + Number(row.p)),
    });
    expect(t.capacity).toBeGreaterThan(SWITCH_BASE_LOCKS);
  });

  // The count is what the refusal rests on: run a switch's DDL for real and read pg_locks before
  // the rollback. It must not count fewer locks than PostgreSQL takes (a publish it lets through
  // would fail), nor so many more that it refuses what fits.
  it("counts at least the locks a switch's DDL takes (pg_locks), and at most twice as many", async () => {
    const scope = { tenant: made.next('lc'), package: 'app' };
    await stageDrafts(platform, scope, stack(generated(12)));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const schema = tenantSchema(scope.tenant);
    const existing = await readExistingSchema(platform.db, schema);
    const tables = [...existing.tables.keys()].filter((t) => t.startsWith('gen_obj_')).sort();
    expect(tables).toHaveLength(12);
    const from = existing.tables.get(tables[0]!)!.columns.get('qty');
    expect(from).toEqual({ base: 'numeric', array: false });
    const steps: SchemaStep[] = tables.slice(0, 8).flatMap((table): SchemaStep[] => [
      { kind: 'alter_column_type', table, column: 'qty', from: from!, to: { base: 'text', array: false } },
      { kind: 'set_not_null', table, column: 'name' },
    ]);
    steps.push({ kind: 'drop_not_null', table: tables[8]!, column: 'notes' });
    const drops = tables.slice(9);
    const relations = await readRelationCounts(platform.db, schema, [...tables]);
    const counted = countSwitchLocks(steps, drops, (t) => relations.get(t) ?? 4);
    let held = 0;
    await platform.db
      .transaction()
      .execute(async (trx) => {
        const base = Number(
          (await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_locks where pid = pg_backend_pid()`.execute(trx)).rows[0]?.n,
        );
        await applySchemaSteps(trx, schema, steps);
        for (const t of drops) await sql`drop table ${sql.id(schema, t)} cascade`.execute(trx);
        const n = Number((await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_locks where pid = pg_backend_pid()`.execute(trx)).rows[0]?.n);
        held = n - base;
        throw new Error('roll back');
      })
      .catch((e: Error) => expect(e.message).toBe('roll back'));
    const ddl = counted.locks - SWITCH_BASE_LOCKS;
    expect(counted.tables).toBe(12);
    expect(held).toBeGreaterThan(8 * 10);
    expect(ddl).toBeGreaterThanOrEqual(held);
    expect(ddl).toBeLessThanOrEqual(2 * held);
    expect((await readExistingSchema(platform.db, schema)).tables.get(tables[0]!)!.columns.get('qty')).toEqual(from);
  });

  it('a republish whose switch would not fit is refused before any DDL: the previous state and the drafts stay', async () => {
    const scope = { tenant: made.next('lt'), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    const metaBefore = await activeRows(scope.tenant);
    await stageDrafts(platform, scope, stack(v2));
    const drafts = await listDrafts(platform, scope);
    let steps = 0;
    const r = await publishPackage(platform, scope, { lockTable: small(110), afterDdlStep: () => void steps++ });
    expect(steps).toBe(0);
    expect(r.outcome).toBe('refused');
    const issues = r.outcome === 'refused' ? r.issues : [];
    expect(issues.map((i) => [i.code, i.severity, i.artifact])).toEqual([['publish_exceeds_lock_table', 'error', { type: 'package', name: 'app' }]]);
    expect(issues[0]!.message).toMatch(
      /^Publishing package "app" changes 2 existing tables in its one switching transaction \(1 table created, a column type change in 1 table, a new column in 1 table, NOT NULL set in 1 table\), which takes about \d+ locks until it commits; the database server's lock table holds 110 \(max_locks_per_transaction 1 × \(max_connections 110 \+ max_prepared_transactions 0\)\)/,
    );
    expect(issues[0]!.fix).toMatch(
      /^Publish the change in parts — about \d+ of these tables per publish fit .* or raise max_locks_per_transaction to at least \d+ in postgresql\.conf/,
    );
    expect(await readExistingSchema(platform.db, tenantSchema(scope.tenant))).toEqual(schemaBefore);
    expect(await activeRows(scope.tenant)).toEqual(metaBefore);
    expect(await listDrafts(platform, scope)).toEqual(drafts);
    // At the server's own settings it fits.
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
  });

  it('a publish that builds ahead is refused before it builds anything', async () => {
    const scope = { tenant: made.next('lt'), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    await stageDrafts(platform, scope, stack(v2));
    let steps = 0;
    let staged = false;
    // Built ahead, its switch keeps the NOT NULL (3 locks) and the type change's swap (1): over 102.
    const r = await publishPackage(platform, scope, {
      lockBudget: 20,
      lockTable: small(102),
      afterDdlStep: () => void steps++,
      onStaged: () => {
        staged = true;
      },
    });
    expect(r.outcome === 'refused' && r.issues.map((i) => i.code)).toEqual(['publish_exceeds_lock_table']);
    expect([steps, staged]).toEqual([0, false]);
    expect(await readExistingSchema(platform.db, tenantSchema(scope.tenant))).toEqual(schemaBefore);
    expect(await stagingRows(scope.tenant)).toBe(0);
    // Built ahead under the budget, then switched, at the server's settings.
    const ok = await publishPackage(platform, scope, { lockBudget: 20, onStaged: () => (staged = true) });
    expect([ok.outcome, staged]).toEqual(['published', true]);
  });

  it('tombstones with dropData count the tables they drop', async () => {
    const scope = { tenant: made.next('lt'), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    await stageTombstones(platform, scope, [
      { type: 'object', name: 'region' },
      { type: 'object', name: 'deal' },
    ]);
    const r = await publishPackage(platform, scope, { dropData: true, lockTable: small(110) });
    const issue = r.outcome === 'refused' ? r.issues[0] : undefined;
    expect(issue?.code).toBe('publish_exceeds_lock_table');
    expect(issue?.message).toContain('a table dropped (dropData) in 2 tables');
    expect(await readExistingSchema(platform.db, tenantSchema(scope.tenant))).toEqual(schemaBefore);
    // Without dropData the tables stay, and nothing is locked for them.
    expect((await publishPackage(platform, scope, { lockTable: small(110) })).outcome).toBe('published');
    expect((await readExistingSchema(platform.db, tenantSchema(scope.tenant))).tables.has('deal')).toBe(true);
  });
});

describe.runIf(ENGINE === 'postgres')('a large republish on PostgreSQL at the server settings', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bvl-republish-'));
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  // The republish changing a column of each of 2,000 tables (test:exhaustive) is in
  // run-publish-staged.test.ts: it republishes the 2,000-object package that file's SIGKILL test publishes.

  // SIGKILL in the switch of a republish that fits the lock table (a type change in every table
  // of the package, thousands of locks in one transaction): the previous state serves, the next
  // publish completes it. Every run kills a 150-object one; test:exhaustive a 250-object one (which
  // builds shadow columns ahead: killed while a batch of them holds a third of the tables).
  const objects = EXHAUSTIVE ? 250 : 150;
  it(
    `SIGKILL in the switch of a ${objects}-object republish changing every table: the previous state serves, and the next publish completes it`,
    async () => {
      const scope = { tenant: made.next('rkill'), package: 'app' };
      const doc = generated(objects);
      await stageDrafts(platform, scope, stack(doc));
      expect((await publishPackage(platform, scope)).outcome).toBe('published');
      const schema = tenantSchema(scope.tenant);
      const schemaBefore = await readExistingSchema(platform.db, schema);
      const metaBefore = await activeRows(scope.tenant);
      const rowsBefore = await sql<{ name: string; qty: string }>`select name, qty::text as qty from ${sql.id(schema, 'gen_obj_0')} order by name`.execute(
        platform.db,
      );
      expect(rowsBefore.rows.length).toBeGreaterThan(0);
      const file = join(dir, 'stack.json');
      await writeFile(file, JSON.stringify(retyped(doc)));
      child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', join(import.meta.dirname, '../test/publish-child.ts')], {
        env: { ...process.env, BVL_TENANT: scope.tenant, BVL_STACK_FILE: file },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout?.on('data', (d) => {
        out += String(d);
      });
      const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
      // Kill it in its switch: its backend holds locks on a third of the package's tables.
      const deadline = Date.now() + 300_000;
      let most = 0;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`the child's switch never locked a third of its tables; it printed: ${out}`);
        const held = await sql<{ n: number }>`select count(distinct l.relation)::int as n from pg_catalog.pg_locks l
          join pg_catalog.pg_class c on c.oid = l.relation join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          join pg_catalog.pg_stat_activity a on a.pid = l.pid
          where l.database = (select oid from pg_catalog.pg_database where datname = current_database())
            and n.nspname = ${schema} and c.relkind = 'r' and l.mode = 'AccessExclusiveLock' and a.application_name like 'bvl publish%'`.execute(platform.db);
        most = Math.max(most, held.rows[0]?.n ?? 0);
        if (most >= objects / 3) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      child.kill('SIGKILL');
      await exited;
      expect(out).toBe('staged\n');
      // The previous state serves: its metadata, its column types, its rows (a larger package's
      // shadow columns built ahead stay beside them, never among them, until the next publish).
      expect(await activeRows(scope.tenant)).toEqual(metaBefore);
      const noShadows = (x: typeof schemaBefore) => ({ ...x, tables: new Map([...x.tables].map(([t, v]) => [t, { ...v, shadows: undefined }])) });
      expect(noShadows(await readExistingSchema(platform.db, schema))).toEqual(noShadows(schemaBefore));
      const rows = await sql<{ name: string; qty: string }>`select name, qty::text as qty from ${sql.id(schema, 'gen_obj_0')} order by name`.execute(
        platform.db,
      );
      expect(rows.rows).toEqual(rowsBefore.rows);
      // The next publish completes it.
      const next = await publishPackage(platform, scope);
      expect(next).toMatchObject({ outcome: 'published', seedApplied: { success: true } });
      const after = await readExistingSchema(platform.db, schema);
      expect(after.tables.get(`gen_obj_${objects - 1}`)!.columns.get('qty')).toEqual({ base: 'text', array: false });
      expect(await listDrafts(platform, scope)).toEqual([]);
    },
    EXHAUSTIVE ? 900_000 : 180_000,
  );
});
