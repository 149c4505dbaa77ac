import { join } from 'node:path';
import { type ArtifactSet, collectStack, readSource } from '@bvl/metadata';
import { type Platform, stageDrafts, withPackageLock } from '@bvl/platform';
import { ENGINE, openTestPlatform, tenants } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishBuild } from './run-publish-build.ts';
import { cancelSession, createSession, listRounds } from './run-session-store.ts';
import { verifyBuild } from './run-verify-build.ts';
import { SessionError } from './session-error.ts';

// A session's bounds hold whatever its callers do at once: parallel verifies count their rounds
// one after the other, and a stopped (or cancelled) session takes no round and no publish, even
// when the stop arrives in the middle of the call.

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');
let platform: Platform;
let app: ArtifactSet;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => new Date('2026-03-15T10:00:00Z'));
  app = await readSource(join(EXAMPLE, 'app'), { draft: true });
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

/** A dashboard whose widget reads a dataset that does not exist: one L1 error per draft. */
const broken = (i: number) =>
  collectStack(
    { dashboards: [{ name: `broken_${i}`, label: 'B', widgets: [{ id: 'w', type: 'metric', dataset: `nowhere_${i}`, values: ['n'] }] }] },
    { draft: true },
  );
const active = (tenant: string) =>
  platform.db.selectFrom('bvl.metadata_items').select('name').where('tenant_id', '=', tenant).where('state', '=', 'active').execute();

describe(`session bounds under concurrency (${ENGINE})`, () => {
  it('8 verifies at once on one draft set record one round', async () => {
    const scope = { tenant: made.next('sc'), package: 'app' };
    await stageDrafts(platform, scope, broken(0));
    const session = await createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 2 } });
    const results = await Promise.all(Array.from({ length: 8 }, () => verifyBuild(platform, { ...scope, session: session.id, fix: false })));
    expect((await listRounds(platform, { tenant: scope.tenant, id: session.id })).length).toBe(1);
    expect(results.filter((r) => !r.unchanged)).toHaveLength(1);
  });

  it('8 verifies at once, each after staging its own draft, never pass maxRounds 2, and nothing is recorded after a stop', async () => {
    const scope = { tenant: made.next('sc'), package: 'app' };
    const session = await createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 2, noProgressRounds: 50 } });
    const wave = (from: number) =>
      Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          await stageDrafts(platform, scope, broken(from + i));
          return verifyBuild(platform, { ...scope, session: session.id, fix: false });
        }),
      );
    await wave(0);
    // Waves until the session stops (each wave changes the draft set, so a verify after it is a new round).
    for (let w = 1; w <= 4; w++) await wave(w * 8);
    const rounds = await listRounds(platform, { tenant: scope.tenant, id: session.id });
    const last = await verifyBuild(platform, { ...scope, session: session.id, fix: false });
    // Round 0 and at most two repair rounds; only the last one stopped the session; nothing after it.
    expect(rounds.map((r) => r.round)).toEqual([0, 1, 2].slice(0, rounds.length));
    expect(rounds.length).toBeGreaterThanOrEqual(2);
    expect(rounds.slice(0, -1).map((r) => r.stopReason)).toEqual(rounds.slice(0, -1).map(() => null));
    expect(['max_rounds', 'oscillation']).toContain(rounds.at(-1)!.stopReason);
    expect(last.session).toMatchObject({ status: 'stopped', rounds: rounds.length });
    expect(last.session!.repairRounds).toBeLessThanOrEqual(2);
  });

  it('a cancelled session refuses a publish: a clear error, nothing published', async () => {
    const scope = { tenant: made.next('sc'), package: 'app' };
    await stageDrafts(platform, scope, app);
    const session = await createSession(platform, { ...scope, goal: 'g' });
    expect((await verifyBuild(platform, { ...scope, session: session.id })).session?.next).toBe('publish');
    await cancelSession(platform, { tenant: scope.tenant, id: session.id });
    const refused = publishBuild(platform, { ...scope, session: session.id });
    await expect(refused).rejects.toBeInstanceOf(SessionError);
    await expect(refused).rejects.toMatchObject({
      kind: 'stopped',
      message: `session "${session.id}" is stopped (cancelled): a stopped session takes no more rounds and no publish, so nothing was published. Start a new session to go on building.`,
    });
    expect(await active(scope.tenant)).toEqual([]);
    expect((await listRounds(platform, { tenant: scope.tenant, id: session.id })).map((r) => r.kind)).toEqual(['verify']);
  });

  it('a cancel in the middle of a verify: the verify records no round and says the session stopped', async () => {
    const scope = { tenant: made.next('sc'), package: 'app' };
    await stageDrafts(platform, scope, broken(0));
    const session = await createSession(platform, { ...scope, goal: 'g' });
    const r = await verifyBuild(
      platform,
      { ...scope, session: session.id },
      {
        beforeRound: async () => {
          await cancelSession(platform, { tenant: scope.tenant, id: session.id });
        },
      },
    );
    expect(r.session).toMatchObject({ status: 'stopped', stopReason: 'cancelled', next: 'stop', rounds: 0 });
    expect(r.issues.map((i) => i.code)).toEqual(['dangling_dataset']);
    expect(await listRounds(platform, { tenant: scope.tenant, id: session.id })).toEqual([]);
  });

  it('a cancel in the middle of a publish rolls the publish back', async () => {
    const scope = { tenant: made.next('sc'), package: 'app' };
    await stageDrafts(platform, scope, app);
    const session = await createSession(platform, { ...scope, goal: 'g' });
    await verifyBuild(platform, { ...scope, session: session.id });
    const r = publishBuild(
      platform,
      { ...scope, session: session.id },
      {
        // PGlite has one connection: the cancel goes through the publish's own transaction there.
        interleave: async (point, trx) => {
          if (point === 'gated') await cancelSession(ENGINE === 'postgres' ? platform : { ...platform, db: trx }, { tenant: scope.tenant, id: session.id });
        },
      },
    );
    await expect(r).rejects.toMatchObject({ kind: 'stopped', message: expect.stringContaining('was stopped during the publish (cancelled)') });
    expect(await active(scope.tenant)).toEqual([]);
  });
});

describe.runIf(ENGINE === 'postgres')('a cancel while the publish waits (PostgreSQL, another connection)', () => {
  it('the publish, let go after the cancel committed, rolls back at its last check', async () => {
    const scope = { tenant: made.next('sc'), package: 'app' };
    await stageDrafts(platform, scope, app);
    const session = await createSession(platform, { ...scope, goal: 'g' });
    await verifyBuild(platform, { ...scope, session: session.id });
    let publishing: Promise<unknown> | undefined;
    // Another process holds the package: the publish, its session still open, waits for it.
    await withPackageLock(platform, scope, async () => {
      publishing = publishBuild(platform, { ...scope, session: session.id }).then(
        (v) => ({ ok: v }),
        (e: unknown) => ({ error: e }),
      );
      await new Promise((r) => setTimeout(r, 200));
      await cancelSession(platform, { tenant: scope.tenant, id: session.id });
    });
    expect(await publishing).toEqual({ error: expect.objectContaining({ kind: 'stopped' }) });
    expect(await active(scope.tenant)).toEqual([]);
  });

  it('a signal cancels a publish that waits for its package: failed, cancelled, nothing published', async () => {
    const scope = { tenant: made.next('sc'), package: 'app' };
    await stageDrafts(platform, scope, app);
    const bound = new AbortController();
    let r: Awaited<ReturnType<typeof publishBuild>> | undefined;
    await withPackageLock(platform, scope, async () => {
      const publishing = publishBuild(platform, { ...scope, signal: bound.signal });
      setTimeout(() => bound.abort(new Error('the request took longer than 120 s')), 200);
      r = await publishing;
    });
    expect(r).toMatchObject({
      outcome: 'failed',
      published: false,
      cancelled: true,
      error: 'nothing was published: the publish was cancelled before it committed (the request took longer than 120 s)',
    });
    expect(await active(scope.tenant)).toEqual([]);
  });
});
