import { randomBytes } from 'node:crypto';
import { collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ENGINE, useTestPlatform } from '../test/test-platform.ts';
import { describeDbError } from './describe-db-error.ts';
import { sameDefault } from './diff-schema.ts';
import { tenantSchema } from './identifier.ts';
import { openPlatform, type Platform } from './open-platform.ts';
import { readExistingSchema } from './run-ddl.ts';
import { stageDrafts } from './run-drafts.ts';
import { packageLockKey, withPackageLock } from './run-package-lock.ts';
import { type PublishResult, publishPackage } from './run-publish.ts';
import { dropTenant } from './run-tenant.ts';

// Publish under hostile settings and neighbours: literals under standard_conforming_strings=off,
// a schema bvl did not create, locks held by someone else, the server's hint in messages.
let platform: Platform;
const made = useTestPlatform((p) => {
  platform = p;
});

const stack = (doc: unknown) => collectStack(doc, { draft: true });
async function publish(p: Platform, scope: { tenant: string; package: string }, doc: unknown, options = {}): Promise<PublishResult> {
  await stageDrafts(p, scope, stack(doc));
  return publishPackage(p, scope, options);
}

/** A default that breaks out of a '' literal when backslashes escape (standard_conforming_strings=off). */
const CRAFTED = `x\\'); insert into bvl.tenants (id, schema_name) values ('pwned', 'pwned'); create table public.pwned_${randomBytes(3).toString('hex')} (x int); --`;

/** Publishes an object whose field default is CRAFTED, on a session where backslashes escape, and proves the value landed verbatim. */
async function literalRoundTrip(p: Platform): Promise<void> {
  expect((await sql<{ v: string }>`select current_setting('standard_conforming_strings') as v`.execute(p.db)).rows[0]?.v).toBe('off');
  const tenant = `lit_${process.pid}_${randomBytes(3).toString('hex')}`;
  try {
    const r = await publish(
      p,
      { tenant, package: 'app' },
      { objects: [{ name: 'note', fields: { name: { type: 'text' }, tone: { type: 'text', defaultValue: CRAFTED } } }] },
    );
    expect(r.outcome).toBe('published');
    await sql`insert into ${sql.id(tenantSchema(tenant), 'note')} (name) values ('n')`.execute(p.db);
    const row = await sql<{ tone: string }>`select tone from ${sql.id(tenantSchema(tenant), 'note')}`.execute(p.db);
    expect(row.rows).toEqual([{ tone: CRAFTED }]);
    // Read back (PostgreSQL doubles its backslashes here), the default is the field's: no step.
    const tone = (await readExistingSchema(p.db, tenantSchema(tenant))).tables.get('note')!.defaults!.get('tone');
    expect(sameDefault({ kind: 'literal', value: CRAFTED }, tone)).toBe(true);
    // A changed one is set as verbatim by a republish.
    const changed = { objects: [{ name: 'note', fields: { name: { type: 'text' }, tone: { type: 'text', defaultValue: `${CRAFTED}2` } } }] };
    expect((await publish(p, { tenant, package: 'app' }, changed)).outcome).toBe('published');
    await sql`insert into ${sql.id(tenantSchema(tenant), 'note')} (name) values ('m')`.execute(p.db);
    const rows = await sql<{ tone: string }>`select tone from ${sql.id(tenantSchema(tenant), 'note')} order by name`.execute(p.db);
    expect(rows.rows).toEqual([{ tone: `${CRAFTED}2` }, { tone: CRAFTED }]);
    expect((await sql`select 1 from bvl.tenants where id = 'pwned'`.execute(p.db)).rows).toEqual([]);
    expect((await sql`select 1 from pg_catalog.pg_class where relname like 'pwned_%'`.execute(p.db)).rows).toEqual([]);
  } finally {
    await dropTenant(p, tenant);
  }
}

describe('DDL literals', () => {
  it.runIf(ENGINE === 'pglite')(
    'a default value with backslashes and quotes lands verbatim with standard_conforming_strings=off (PGlite: this session)',
    async () => {
      await sql`set standard_conforming_strings = off`.execute(platform.db);
      try {
        await literalRoundTrip(platform);
      } finally {
        await sql`set standard_conforming_strings = on`.execute(platform.db);
      }
    },
  );

  it.runIf(ENGINE === 'postgres')('… and on a PostgreSQL database that has it off for every session', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    const name = `${url.pathname.slice(1)}_scs_${process.pid}_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    try {
      await admin.query(`create database ${name}`);
      await admin.query(`alter database ${name} set standard_conforming_strings = off`);
      const other = new URL(url);
      other.pathname = `/${name}`;
      const p = await openPlatform({ databaseUrl: other.toString() });
      try {
        await literalRoundTrip(p);
      } finally {
        await p.close();
      }
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});

describe('the tenant schema', () => {
  it('is refused when a schema of that name exists that bvl did not create; nothing in it changes', async () => {
    const tenant = made.next('foreign');
    const schema = tenantSchema(tenant);
    await sql`create schema ${sql.id(schema)}`.execute(platform.db);
    await sql`create table ${sql.id(schema, 'acct')} (keep text)`.execute(platform.db);
    try {
      const r = await publish(platform, { tenant, package: 'app' }, { objects: [{ name: 'acct', fields: { name: { type: 'text' } } }] });
      expect(r).toMatchObject({
        outcome: 'failed',
        error: `nothing was published: schema "${schema}" already exists and was not created by bvl for tenant "${tenant}" (it has no bvl mark), so bvl will not alter it. Drop or rename that schema, or publish to another tenant.`,
      });
      expect([...(await readExistingSchema(platform.db, schema)).tables.get('acct')!.columns.keys()]).toEqual(['keep']);
      // dropTenant leaves a schema that is not bvl's in place.
      await dropTenant(platform, tenant);
      expect((await sql`select 1 from pg_catalog.pg_namespace where nspname = ${schema}`.execute(platform.db)).rows).toHaveLength(1);
    } finally {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(platform.db);
    }
  });

  it('is created with bvl mark, and reads stay inside it (a same-named table elsewhere is not seen)', async () => {
    const tenant = made.next();
    const r = await publish(platform, { tenant, package: 'app' }, { objects: [{ name: 'acct', fields: { name: { type: 'text' } } }] });
    expect(r.outcome).toBe('published');
    const mark = await sql<{
      c: string;
    }>`select obj_description(oid, 'pg_namespace') as c from pg_catalog.pg_namespace where nspname = ${tenantSchema(tenant)}`.execute(platform.db);
    expect(mark.rows).toEqual([{ c: `bvl:tenant:${tenant}` }]);
    const tables = [...(await readExistingSchema(platform.db, tenantSchema(tenant))).tables.keys()];
    expect(tables).toContain('acct');
    expect(tables.every((t) => t === 'acct' || t.startsWith('sys_'))).toBe(true);
  });
});

describe('database messages', () => {
  it('keep the server hint and a constraint violation detail', () => {
    const e = Object.assign(new Error('out of shared memory'), { code: '53200', hint: 'You might need to increase max_locks_per_transaction.' });
    expect(describeDbError(e)).toBe('out of shared memory (hint: You might need to increase max_locks_per_transaction.)');
    const dup = Object.assign(new Error('duplicate key value violates unique constraint "uq_x"'), { code: '23505', detail: 'Key (code)=(A1) already exists.' });
    expect(describeDbError(dup)).toBe('duplicate key value violates unique constraint "uq_x" (Key (code)=(A1) already exists.)');
    // A broken socket reads the same whichever side noticed it (a COPY writing, a query reading).
    for (const m of ['read ECONNRESET', 'write EPIPE', 'socket hang up', 'Connection terminated unexpectedly'])
      expect(describeDbError(Object.assign(new Error(m), { code: m.includes('EPIPE') ? 'EPIPE' : 'ECONNRESET' }))).toBe('Connection terminated unexpectedly');
  });

  it.runIf(ENGINE === 'postgres')('from the server itself carry its hint', async () => {
    const e = await sql`select * from nope_${sql.raw(randomBytes(3).toString('hex'))}`.execute(platform.db).catch((x: unknown) => x);
    expect(describeDbError(e)).toMatch(/^relation "nope_[0-9a-f]+" does not exist$/);
    const withHint = await sql`select pg_catalog.nosuchfn(1)`.execute(platform.db).catch((x: unknown) => x);
    expect(describeDbError(withHint)).toBe(
      'function pg_catalog.nosuchfn(integer) does not exist (hint: No function matches the given name and argument types. You might need to add explicit type casts.)',
    );
  });
});

describe.runIf(ENGINE === 'postgres')('lock waits (PostgreSQL)', () => {
  it('a package lock held by another session: the publish gives up after the wait and names the holder', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL, application_name: 'someone else' });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock(hashtextextended($1, 0))', [packageLockKey(scope)]);
      const pid = (await holder.query('select pg_backend_pid() as pid')).rows[0].pid as number;
      await stageDrafts(platform, scope, stack({ objects: [{ name: 'acct', fields: {} }] }));
      const r = await publishPackage(platform, scope, { lockWaitMs: 300 });
      expect(r).toMatchObject({ outcome: 'failed' });
      if (r.outcome !== 'failed') return;
      expect(r.error).toMatch(
        new RegExp(
          `^nothing was published: package "app" of tenant "${scope.tenant}" is locked by another publish: pid ${pid} \\(application "someone else", idle, for \\d+ s\\) holds it, and bvl waited 0 s\\. Try again when that publish finishes\\.$`,
        ),
      );
      // withPackageLock (bvl publish) waits the same way.
      await expect(withPackageLock(platform, scope, async () => 'ran', { waitMs: 300 })).rejects.toThrow(
        /is locked by another publish: pid \d+ \(application "someone else"/,
      );
    } finally {
      await holder.end();
    }
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
  });

  it('a table a reader keeps locked: the DDL gives up and the error names the reader and the table', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await publish(platform, scope, { objects: [{ name: 'acct', fields: { name: { type: 'text' } } }] });
    const reader = new pg.Client({ connectionString: process.env.DATABASE_URL, application_name: 'a long report' });
    await reader.connect();
    try {
      await reader.query('begin');
      await reader.query(`select count(*) from ${tenantSchema(scope.tenant)}.acct`);
      const r = await publish(
        platform,
        scope,
        { objects: [{ name: 'acct', fields: { name: { type: 'text' }, size: { type: 'number' } } }] },
        { ddlLockWaitMs: 300 },
      );
      expect(r).toMatchObject({ outcome: 'failed' });
      if (r.outcome !== 'failed') return;
      expect(r.error).toMatch(
        new RegExp(
          `^publish rolled back, the previous published state is unchanged: canceling statement due to lock timeout; tables of schema ${tenantSchema(scope.tenant)} are locked by pid \\d+ \\(application "a long report", idle in transaction, for \\d+ s\\) \\(acct\\); the publish waited 0\\.3 s for them$`,
        ),
      );
    } finally {
      await reader.end();
    }
  });
});
