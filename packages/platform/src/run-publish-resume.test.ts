import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, useTestPlatform } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { stageDrafts } from './run-drafts.ts';
import { type PublishResult, publishPackage } from './run-publish.ts';

// Seeds run after the publish commits. When the process dies while seeding, the publish log row
// keeps `{"pending": true}` and the seeds never land — unless the next publish notices and applies
// them, drafts or not, and says so.

let platform: Platform;
const made = useTestPlatform((p) => {
  platform = p;
});

const count = async (tenant: string, table: string): Promise<number> =>
  Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.id(tenantSchema(tenant), table)}`.execute(platform.db)).rows[0]?.n);
const lastLog = (tenant: string) =>
  platform.db
    .selectFrom('bvl.publish_log')
    .select(['id', 'outcome', 'published', 'seed_applied'])
    .where('tenant_id', '=', tenant)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
const codes = (r: PublishResult) => (r.outcome === 'published' ? r.issues.map((i) => [i.code, i.severity]) : r);

/** Three seeded objects: a (3 rows), b (`big` rows), c (2 rows), seeded in that order. */
const stack = (big: number) => ({
  objects: ['a', 'b', 'c'].map((name) => ({ name, fields: { name: { type: 'text' } } })),
  data: [
    { object: 'a', externalId: 'name', records: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }] },
    { object: 'b', externalId: 'name', records: Array.from({ length: big }, (_, i) => ({ name: `b${i}` })) },
    { object: 'c', externalId: 'name', records: [{ name: 'c1' }, { name: 'c2' }] },
  ],
});

describe(`seeds a publish left unfinished (${ENGINE})`, () => {
  it('a publish whose seeds never ran (its log row still pending): the next publish, with no drafts, applies them and says so', async () => {
    const scope = { tenant: made.next('rs'), package: 'app' };
    await stageDrafts(platform, scope, collectStack(stack(5), { draft: true }));
    const first = await publishPackage(platform, scope);
    expect(first.outcome).toBe('published');
    // What a process killed right after the commit leaves: the log row pending, no seeded rows.
    await platform.db.updateTable('bvl.publish_log').set({ seed_applied: '{"pending": true}' }).where('tenant_id', '=', scope.tenant).execute();
    for (const t of ['a', 'b', 'c']) await sql`delete from ${sql.id(tenantSchema(scope.tenant), t)}`.execute(platform.db);
    const pendingId = Number((await lastLog(scope.tenant)).id);

    const next = await publishPackage(platform, scope);
    expect(next.outcome).toBe('published');
    expect(next.outcome === 'published' && [next.published, next.resumed, next.seedApplied.inserted]).toEqual([[], pendingId, 10]);
    expect(codes(next)).toEqual([['seeds_resumed', 'warning']]);
    expect(next.outcome === 'published' && next.issues[0]!.message).toBe(
      `The seeds of package "app"'s publish #${pendingId} in tenant "${scope.tenant}" never finished (the process stopped while seeding, or a database failure stopped them); this publish applied the package's seeds again: 10 rows inserted, 0 updated, 0 skipped.`,
    );
    expect([await count(scope.tenant, 'a'), await count(scope.tenant, 'b'), await count(scope.tenant, 'c')]).toEqual([3, 5, 2]);
    const log = await lastLog(scope.tenant);
    expect([log.outcome, log.published, (log.seed_applied as { inserted: number }).inserted]).toEqual([
      'published',
      // PostgreSQL also records the backend that ran it (`runner`: readPublish tells a live publish from a dead one).
      expect.objectContaining({ published: [], retired: [], resumed: pendingId }),
      10,
    ]);
    // Done: the one after has nothing to do.
    expect((await publishPackage(platform, scope)).outcome).toBe('nothing_to_publish');
  });

  it('with drafts, the publish applies them with the seeds and carries the warning', async () => {
    const scope = { tenant: made.next('rs'), package: 'app' };
    await stageDrafts(platform, scope, collectStack(stack(5), { draft: true }));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    // A database failure stopped the seeds: the report says so.
    await platform.db
      .updateTable('bvl.publish_log')
      .set({ seed_applied: JSON.stringify({ success: false, inserted: 3, updated: 0, skipped: 0, errors: [], errorsOmitted: 0, seeds: [], interrupted: 'x' }) })
      .where('tenant_id', '=', scope.tenant)
      .execute();
    await sql`delete from ${sql.id(tenantSchema(scope.tenant), 'c')}`.execute(platform.db);
    await stageDrafts(platform, scope, collectStack({ objects: [{ name: 'd', fields: { name: { type: 'text' } } }] }, { draft: true }));
    const next = await publishPackage(platform, scope);
    expect(next.outcome === 'published' && next.published.map((p) => p.name)).toEqual(['d']);
    expect(codes(next)).toEqual([['seeds_resumed', 'warning']]);
    expect(await count(scope.tenant, 'c')).toBe(2);
  });

  it('a clean publish log: nothing to publish stays nothing to publish', async () => {
    const scope = { tenant: made.next('rs'), package: 'app' };
    await stageDrafts(platform, scope, collectStack(stack(2), { draft: true }));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    expect((await publishPackage(platform, scope)).outcome).toBe('nothing_to_publish');
  });
});

describe.runIf(ENGINE === 'postgres')('a publishing process killed while it seeds (PostgreSQL)', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bvl-resume-'));
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('SIGKILL mid-seed: the next publish finds the pending log row and the seeds land', async () => {
    const scope = { tenant: made.next('kill'), package: 'app' };
    const file = join(dir, 'stack.json');
    await writeFile(file, JSON.stringify(stack(60_000)));
    child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', join(import.meta.dirname, '../test/publish-child.ts')], {
      env: { ...process.env, BVL_TENANT: scope.tenant, BVL_STACK_FILE: file },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += String(d);
    });
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    // Kill it once seed "a" has committed and the publish log is still pending: it is seeding "b".
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`the child never reached the seeds; it printed: ${out}`);
      const log = await platform.db.selectFrom('bvl.publish_log').select(['seed_applied']).where('tenant_id', '=', scope.tenant).executeTakeFirst();
      if ((log?.seed_applied as { pending?: boolean } | undefined)?.pending === true && (await count(scope.tenant, 'a').catch(() => 0)) === 3) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGKILL');
    await exited;
    expect(out).toBe('staged\n');
    expect((await lastLog(scope.tenant)).seed_applied).toEqual({ pending: true });
    expect(await count(scope.tenant, 'c')).toBe(0);

    const next = await publishPackage(platform, scope);
    expect(next.outcome === 'published' && [next.published, next.resumed !== undefined]).toEqual([[], true]);
    expect(codes(next)).toEqual([['seeds_resumed', 'warning']]);
    expect([await count(scope.tenant, 'a'), await count(scope.tenant, 'b'), await count(scope.tenant, 'c')]).toEqual([3, 60_000, 2]);
  }, 120_000);
});
