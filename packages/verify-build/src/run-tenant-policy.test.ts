import { join } from 'node:path';
import { type ArtifactSet, readSource } from '@bvl/metadata';
import { type Platform, publishPackage, stageDrafts } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelSession, createSession, expireSessions, getSession, listRounds, stopSession } from './run-session-store.ts';
import { getTenantPolicy, putTenantPolicy } from './run-tenant-policy.ts';
import { verifyBuild } from './run-verify-build.ts';
import { SessionError } from './session-error.ts';
import { DEFAULT_POLICY } from './tenant-policy.ts';

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');
let platform: Platform;
let app: ArtifactSet;
let drafts: ArtifactSet;
/** The platform's clock: tests move it. */
let clock = new Date('2026-03-15T10:00:00Z').getTime();
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => new Date(clock));
  app = await readSource(join(EXAMPLE, 'app'), { draft: true });
  drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

/** A tenant with the example app published and the agent's drafts (with errors the fixer cannot fix) staged. */
async function published() {
  const scope = { tenant: made.next(), package: 'app' };
  await stageDrafts(platform, scope, app);
  expect((await publishPackage(platform, scope)).outcome).toBe('published');
  await stageDrafts(platform, scope, drafts);
  return scope;
}
const refused = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(SessionError);
  return e as SessionError;
};

describe('tenant policy', () => {
  it('a session asking more than the maximum gets the maximum, and the answer says so', async () => {
    const scope = await published();
    await putTenantPolicy(platform, scope.tenant, { maximums: { maxRounds: 3, budgetTokens: 5000 }, defaults: { budgetTokens: 2000 } });
    const s = await createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 50, budgetTokens: 90_000 } });
    expect(s.bounds).toMatchObject({ maxRounds: 3, budgetTokens: 5000 });
    expect(s.capped).toEqual(["maxRounds: asked 50, the tenant's maximum is 3", "budgetTokens: asked 90000, the tenant's maximum is 5000"]);
    // Not asked: the default; and the read view does not repeat the note.
    await cancelSession(platform, { tenant: scope.tenant, id: s.id });
    const t = await createSession(platform, { ...scope, goal: 'g' });
    expect(t.bounds).toMatchObject({ maxRounds: 2, budgetTokens: 2000 });
    expect((await getSession(platform, { tenant: scope.tenant, id: t.id })).capped).toBeUndefined();
  });

  it('a stopped session cannot be replaced by a fresh one: rounds and spend count across the package’s sessions in the window', async () => {
    const scope = await published();
    await putTenantPolicy(platform, scope.tenant, { maximums: { maxRounds: 2 }, windowMs: 3_600_000 });
    const first = await createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 2 } });
    // While it is open it holds its whole bounds (3 verify rounds): nothing is left for a second one.
    const e = await refused(createSession(platform, { ...scope, goal: 'g' }));
    expect(e.kind).toBe('limited');
    expect(e.message).toMatch(/holds? 3 of the 3 verify rounds/);
    expect(e.retryAt).toBe('2026-03-15T11:00:00.000Z');
    // It verifies twice (round 0 and one repair) and stops: 2 used, 1 left for the next session.
    await verifyBuild(platform, { ...scope, session: first.id, fix: false });
    await stageDrafts(platform, scope, [{ ...drafts.artifacts[0]!, body: { ...(drafts.artifacts[0]!.body as object), label: 'changed' } }]);
    await verifyBuild(platform, { ...scope, session: first.id, fix: false });
    await stopSession(platform, { tenant: scope.tenant, id: first.id, reason: 'cancelled' });
    const second = await createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 2 } });
    expect(second.bounds.maxRounds).toBe(0);
    expect(second.capped?.[0]).toMatch(/^maxRounds: capped at 0: package sessions of the last 60 min hold 2 of the 3 verify rounds/);
    await verifyBuild(platform, { ...scope, session: second.id, fix: false });
    expect((await getSession(platform, { tenant: scope.tenant, id: second.id })).stopReason).toBe('max_rounds');
    expect((await refused(createSession(platform, { ...scope, goal: 'g' }))).kind).toBe('limited');
    // Past the window the package starts afresh.
    clock += 3_600_001;
    expect((await createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 2 } })).bounds.maxRounds).toBe(2);
  });

  it('tokens and USD count across sessions too; another package of the tenant has its own window', async () => {
    const scope = await published();
    await putTenantPolicy(platform, scope.tenant, { maximums: { budgetTokens: 1000 } });
    const a = await createSession(platform, { ...scope, goal: 'g', bounds: { budgetTokens: 400 } });
    await verifyBuild(platform, { ...scope, session: a.id, usage: { tokensIn: 250, tokensOut: 50 }, fix: false });
    await cancelSession(platform, { tenant: scope.tenant, id: a.id });
    const b = await createSession(platform, { ...scope, goal: 'g' });
    expect(b.bounds.budgetTokens).toBe(700);
    const other = await createSession(platform, { tenant: scope.tenant, package: 'other', goal: 'g' });
    expect(other.bounds.budgetTokens).toBe(1000);
  });

  it('sessions opened at once never share out more than the window holds (creates are serialised per package)', async () => {
    const scope = await published();
    await putTenantPolicy(platform, scope.tenant, { maximums: { maxRounds: 5 } });
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 1 } })));
    // 6 verify rounds in the window, 2 per session: exactly three open, the rest refused as limited.
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as SessionError).kind).toBe('limited');
  });

  it('a policy change never loosens an open session: its bounds were snapshotted when it opened, even with the change racing its rounds', async () => {
    const scope = await published();
    await putTenantPolicy(platform, scope.tenant, { maximums: { maxRounds: 1 }, windowMs: 0 });
    const s = await createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 9 } });
    expect(s.bounds.maxRounds).toBe(1);
    // The operator raises the maximum while the session's first round is being decided.
    const r0 = await verifyBuild(
      platform,
      { ...scope, session: s.id, fix: false },
      { beforeRound: () => putTenantPolicy(platform, scope.tenant, { maximums: { maxRounds: 50 }, windowMs: 0 }).then(() => undefined) },
    );
    expect(r0.session?.bounds.maxRounds).toBe(1);
    await stageDrafts(platform, scope, [{ ...drafts.artifacts[0]!, body: { ...(drafts.artifacts[0]!.body as object), label: 'again' } }]);
    const r1 = await verifyBuild(platform, { ...scope, session: s.id, fix: false });
    expect(r1.session).toMatchObject({ status: 'stopped', stopReason: 'max_rounds', bounds: { maxRounds: 1 } });
    expect(await listRounds(platform, { tenant: scope.tenant, id: s.id })).toHaveLength(2);
    // A session opened after the change gets the new maximum.
    expect((await createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 9 } })).bounds.maxRounds).toBe(9);
  });

  it('a tenant token may only tighten: loosening is refused, naming each loosening; bad policies are clear errors', async () => {
    const scope = await published();
    const server = { ...DEFAULT_POLICY, requireSession: true };
    await putTenantPolicy(platform, scope.tenant, { maximums: { maxRounds: 4 } }, { server, onlyTighten: true });
    const e = await refused(putTenantPolicy(platform, scope.tenant, { requireSession: false, maximums: { maxRounds: 10 } }, { server, onlyTighten: true }));
    expect(e.kind).toBe('forbidden');
    expect(e.message).toContain('requireSession: true → false; maximums.maxRounds: 4 → 10');
    expect((await getTenantPolicy(platform, scope.tenant, server)).effective).toMatchObject({ requireSession: true, maximums: { maxRounds: 4 } });
    expect((await refused(putTenantPolicy(platform, scope.tenant, { maximums: { maxRounds: -1 } }))).message).toMatch(/maximums\.maxRounds/);
    expect((await refused(putTenantPolicy(platform, scope.tenant, { defaults: { maxRounds: 5 }, maximums: { maxRounds: 4 } }))).message).toMatch(
      /defaults\.maxRounds 5 is over maximums\.maxRounds 4/,
    );
    expect((await refused(putTenantPolicy(platform, scope.tenant, { rounds: 3 }))).message).toMatch(/invalid policy/);
    expect((await getTenantPolicy(platform, scope.tenant)).version).toBe(1);
  });
});

describe('session expiry', () => {
  it('an open session idle past its limit is closed as expired when next touched, and takes no more rounds', async () => {
    const scope = await published();
    const s = await createSession(platform, { ...scope, goal: 'g', bounds: { idleMs: 60_000 } });
    await verifyBuild(platform, { ...scope, session: s.id, fix: false });
    clock += 59_000;
    expect((await getSession(platform, { tenant: scope.tenant, id: s.id })).status).toBe('open');
    clock += 2_000;
    const r = await verifyBuild(platform, { ...scope, session: s.id, fix: false });
    expect(r.session).toMatchObject({ status: 'stopped', stopReason: 'expired', next: 'stop' });
    expect(await listRounds(platform, { tenant: scope.tenant, id: s.id })).toHaveLength(1);
  });

  it('the sweep closes idle sessions (a killed build), each by its own limit', async () => {
    const scope = await published();
    const short = await createSession(platform, { ...scope, goal: 'g', bounds: { idleMs: 1_000 } });
    await cancelSession(platform, { tenant: scope.tenant, id: short.id });
    const idle = await createSession(platform, { ...scope, goal: 'g', bounds: { idleMs: 1_000 } });
    const long = await createSession(platform, { ...scope, goal: 'g' });
    clock += 5_000;
    expect(await expireSessions(platform, scope)).toBe(1);
    expect((await getSession(platform, { tenant: scope.tenant, id: idle.id })).stopReason).toBe('expired');
    expect((await getSession(platform, { tenant: scope.tenant, id: short.id })).stopReason).toBe('cancelled');
    expect((await getSession(platform, { tenant: scope.tenant, id: long.id })).status).toBe('open');
  });
});
