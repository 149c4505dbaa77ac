import { join } from 'node:path';
import { type ArtifactSet, type RawArtifact, readSource } from '@bvl/metadata';
import { type Platform, publishPackage, stageDrafts } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { verify } from '@bvl/verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelSession, createSession, listRounds, stopSession } from './run-session-store.ts';
import { verifyBuild } from './run-verify-build.ts';
import { MAX_GOAL_LENGTH, SessionError } from './session-error.ts';

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');
let platform: Platform;
let app: ArtifactSet;
let drafts: ArtifactSet;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => new Date('2026-03-15T10:00:00Z'));
  app = await readSource(join(EXAMPLE, 'app'), { draft: true });
  drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

/** A tenant with the example app published. */
async function published() {
  const scope = { tenant: made.next(), package: 'app' };
  await stageDrafts(platform, scope, app);
  expect((await publishPackage(platform, scope)).outcome).toBe('published');
  return scope;
}
/** The example dashboard with its widgets changed by `edit` (a draft an agent would stage). */
function dashboard(edit: (widgets: any[]) => void): RawArtifact {
  const d = drafts.artifacts.find((a) => a.type === 'dashboard')!;
  const body = structuredClone(d.body) as { widgets: any[] };
  edit(body.widgets);
  return { ...d, body };
}
const codes = (issues: readonly { code: string; artifact: { name: string }; path?: string }[]) => issues.map((i) => [i.code, i.artifact.name, i.path]);

describe('verifyBuild', () => {
  it('without a session is exactly verify over the store overlay (the same function bvl verify runs)', async () => {
    const scope = await published();
    await stageDrafts(platform, scope, drafts);
    const r = await verifyBuild(platform, scope);
    const files = verify(await readSource(join(EXAMPLE, 'app')), await readSource(join(EXAMPLE, 'drafts'), { draft: true }));
    expect(r.issues).toEqual(files.issues);
    expect(r.publishable).toBe(false);
    expect(r.session).toBeNull();
    expect(r.fixes).toEqual([]);
    expect(r.card.layers.structure.status).toBe('fail');
  });

  it('in a session the fixer repairs #2 (measure typo) and #6 (type list) by itself, reports what changed, and leaves #1 to the agent', async () => {
    const scope = await published();
    await stageDrafts(platform, scope, drafts);
    const session = await createSession(platform, { ...scope, goal: 'Track expenses with a spending dashboard' });
    const r = await verifyBuild(platform, { ...scope, session: session.id });
    expect(r.fixes).toEqual([
      { artifact: { type: 'dashboard', name: 'exp_spending' }, path: '/widgets/0/values/0', old: 'amount', new: 'total_amount', code: 'unknown_measure' },
      // The spec refuses a "list" view type (an error whatever objectui draws); its safe patch to grid is the fixer's too.
      { artifact: { type: 'view', name: 'exp_expense.recent' }, path: '/config/type', old: 'list', new: 'grid', code: 'invalid_artifact' },
    ]);
    expect(codes(r.issues)).toEqual([['dangling_dataset', 'exp_spending', '/widgets/2/dataset']]);
    expect(r.session).toMatchObject({ status: 'open', rounds: 1, repairRounds: 0, next: 'repair', stopReason: null });
    const [round] = await listRounds(platform, { tenant: scope.tenant, id: session.id });
    expect(round).toMatchObject({ round: 0, kind: 'verify', fixes: r.fixes, errors: [expect.any(String)] });

    // The same drafts again cost no round.
    const again = await verifyBuild(platform, { ...scope, session: session.id });
    expect(again.unchanged).toBe(true);
    expect(again.session?.rounds).toBe(1);
    expect(again.issues).toEqual(r.issues);
  });

  it('an ambiguous measure is left to the agent: the fixer applies no unsafe patch', async () => {
    const scope = await published();
    const ds = app.artifacts.find((a) => a.type === 'dataset')!;
    const twoOnAmount = structuredClone(ds.body) as { measures: unknown[] };
    twoOnAmount.measures.push({ name: 'max_amount', aggregate: 'max', field: 'amount' });
    await stageDrafts(platform, scope, [dashboard((w) => (w[0].values = ['amount'])), { ...ds, body: twoOnAmount }]);
    const session = await createSession(platform, { ...scope, goal: 'g' });
    const r = await verifyBuild(platform, { ...scope, session: session.id });
    expect(r.fixes.map((f) => f.path)).toEqual([]);
    expect(r.issues.find((i) => i.code === 'unknown_measure')).toMatchObject({ path: '/widgets/0/values/0', fixSafety: 'unsafe' });
  });

  it('an agent that never fixes stops with max_rounds after 2 repair rounds; later verifies record nothing', async () => {
    const scope = await published();
    const session = await createSession(platform, { ...scope, goal: 'g' });
    const results = [];
    for (const title of ['one', 'two', 'three', 'four']) {
      await stageDrafts(platform, scope, [
        dashboard((w) => {
          w[2].title = title;
          w[0].values = ['total_amount'];
        }),
      ]);
      results.push(await verifyBuild(platform, { ...scope, session: session.id }));
    }
    expect(results.map((r) => [r.session?.rounds, r.session?.next, r.session?.stopReason])).toEqual([
      [1, 'repair', null],
      [2, 'repair', null],
      [3, 'stop', 'max_rounds'],
      [3, 'stop', 'max_rounds'],
    ]);
    expect(results[3]!.issues.map((i) => i.code)).toEqual(['dangling_dataset']);
  });

  it('an agent that undoes its fix stops with oscillation', async () => {
    const scope = await published();
    const session = await createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: 5 } });
    const broken = (w: any[]) => {
      w[0].values = ['zzz'];
      w[2].dataset = 'exp_budget';
    };
    const rounds = [
      dashboard(broken),
      dashboard((w) => {
        broken(w);
        w[2].dataset = 'exp_expense_metrics';
        w[2].values = ['total_amount'];
      }),
      dashboard(broken),
    ];
    let last: Awaited<ReturnType<typeof verifyBuild>> | undefined;
    for (const d of rounds) {
      await stageDrafts(platform, scope, [d]);
      last = await verifyBuild(platform, { ...scope, session: session.id, fix: false });
    }
    expect(last?.session).toMatchObject({ status: 'stopped', stopReason: 'oscillation', next: 'stop' });
    // The why names the issue that came back (code, artifact, where) and the rounds it moved in.
    expect(last?.why).toMatch(
      /^1 issue\(s\) an earlier round fixed are back.*: \w+ on dashboard "\w+" at \/widgets\/\d+.* \(in round 0, fixed in round 1, back in round 2\)$/,
    );
    const recorded = await listRounds(platform, { tenant: scope.tenant, id: session.id });
    expect(recorded[2]!.diff.reappeared).toHaveLength(1);
  });

  it('a token budget stops the session; usage adds up across calls', async () => {
    const scope = await published();
    await stageDrafts(platform, scope, drafts);
    const session = await createSession(platform, { ...scope, goal: 'g', bounds: { budgetTokens: 1000 } });
    const r1 = await verifyBuild(platform, { ...scope, session: session.id, usage: { tokensIn: 400, tokensOut: 100, costUsd: 0.01 } });
    expect(r1.session?.status).toBe('open');
    await stageDrafts(platform, scope, [dashboard((w) => (w[2].title = 'x'))]);
    const r2 = await verifyBuild(platform, { ...scope, session: session.id, usage: { tokensIn: 500, tokensOut: 100, costUsd: 0.01 } });
    expect(r2.session).toMatchObject({ status: 'stopped', stopReason: 'budget', usage: { tokensIn: 900, tokensOut: 200, costUsd: 0.02 } });
  });

  it('a cancelled session stops as cancelled and records no further round', async () => {
    const scope = await published();
    await stageDrafts(platform, scope, drafts);
    const session = await createSession(platform, { ...scope, goal: 'g' });
    await verifyBuild(platform, { ...scope, session: session.id });
    expect((await cancelSession(platform, { tenant: scope.tenant, id: session.id })).stopReason).toBe('cancelled');
    await stageDrafts(platform, scope, [dashboard((w) => (w[2].title = 'y'))]);
    const r = await verifyBuild(platform, { ...scope, session: session.id });
    expect(r.session).toMatchObject({ status: 'stopped', stopReason: 'cancelled', rounds: 1 });
  });

  it('a loop may stop a session between rounds (budget, no_progress); a stopped session keeps its first reason', async () => {
    const scope = await published();
    const session = await createSession(platform, { ...scope, goal: 'g' });
    expect(await stopSession(platform, { tenant: scope.tenant, id: session.id, reason: 'no_progress' })).toMatchObject({
      status: 'stopped',
      stopReason: 'no_progress',
      next: 'stop',
    });
    expect((await cancelSession(platform, { tenant: scope.tenant, id: session.id })).stopReason).toBe('no_progress');
    await expect(stopSession(platform, { tenant: made.next(), id: session.id, reason: 'budget' })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('refuses unknown sessions, another tenant’s or package’s session, a huge goal and bad bounds, with clear errors', async () => {
    const scope = await published();
    const other = await published();
    const session = await createSession(platform, { ...scope, goal: 'g' });
    await expect(verifyBuild(platform, { ...scope, session: '6f1c2a7e-0000-4000-8000-000000000000' })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(verifyBuild(platform, { ...scope, session: 'not-a-uuid' })).rejects.toThrow(/unknown session/);
    await expect(verifyBuild(platform, { ...other, session: session.id })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(verifyBuild(platform, { ...scope, package: 'other', session: session.id })).rejects.toThrow(/builds package "app", not "other"/);
    await expect(createSession(platform, { ...scope, goal: 'x'.repeat(MAX_GOAL_LENGTH + 1) })).rejects.toThrow(SessionError);
    await expect(createSession(platform, { ...scope, goal: '' })).rejects.toThrow(/needs a goal/);
    await expect(createSession(platform, { ...scope, goal: 'g', bounds: { maxRounds: -1 } })).rejects.toThrow(/maxRounds/);
    await expect(createSession(platform, { ...scope, goal: 'g', bounds: { rounds: 3 } as never })).rejects.toThrow(/invalid session bounds/);
  });
});
