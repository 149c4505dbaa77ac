import { join } from 'node:path';
import { fingerprint } from '@bvl/build-issue';
import { type ArtifactSet, type RawArtifact, readSource } from '@bvl/metadata';
import { type Platform, publishPackage, readOverlayRows, stageDrafts } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerVerify } from './answer-verify.ts';
import { draftHash } from './draft-hash.ts';
import { applyFix } from './run-apply-fix.ts';
import { createSession } from './run-session-store.ts';
import { verifyBuild } from './run-verify-build.ts';
import { AnswerError } from './view-options.ts';

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

/** A tenant with the example published and the agent's broken drafts staged. */
async function broken() {
  const scope = { tenant: made.next(), package: 'app' };
  await stageDrafts(platform, scope, app);
  expect((await publishPackage(platform, scope)).outcome).toBe('published');
  await stageDrafts(platform, scope, drafts);
  return scope;
}
const dashboardDraft = (edit: (widgets: any[]) => void): RawArtifact => {
  const d = drafts.artifacts.find((a) => a.type === 'dashboard')!;
  const body = structuredClone(d.body) as { widgets: any[] };
  edit(body.widgets);
  return { ...d, body };
};
/** The patch ids a summary answer offers now. */
async function offered(scope: { tenant: string; package: string }) {
  const a = answerVerify(await verifyBuild(platform, scope), {}, 'summary');
  return { answer: a, patches: a.issues.filter((i) => i.patchId).map((i) => ({ id: i.id, code: i.code, patchId: i.patchId! })) };
}
const refused = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AnswerError);
  return e as AnswerError;
};

describe('applyFix', () => {
  it('applies an offered patch by id, verified first: the issue is gone, the draft version moves on', async () => {
    const scope = await broken();
    const { answer, patches } = await offered(scope);
    const measure = patches.find((p) => p.code === 'unknown_measure')!;
    const r = await applyFix(platform, { ...scope, patches: [measure.patchId], draftVersion: answer.draftVersion });
    expect(r.applied).toEqual([
      { patchId: measure.patchId, issue: measure.id, code: 'unknown_measure', artifact: { type: 'dashboard', name: 'exp_spending' } },
    ]);
    expect(r.changes).toEqual([
      { artifact: { type: 'dashboard', name: 'exp_spending' }, path: '/widgets/0/values/0', old: 'amount', new: 'total_amount', code: 'unknown_measure' },
    ]);
    expect(r.fixed).toEqual([measure.id]);
    expect(r.previousVersion).toBe(answer.draftVersion);
    expect(r.draftVersion).toBe(draftHash(await readOverlayRows(platform.db, scope.tenant, scope.package), scope.package));
    const after = await verifyBuild(platform, scope);
    expect(after.issues.map((i) => i.code)).not.toContain('unknown_measure');
    expect(after.draftVersion).toBe(r.draftVersion);
  });

  it('a patch offered before the drafts changed is refused, naming both versions, and nothing is applied', async () => {
    const scope = await broken();
    const { patches } = await offered(scope);
    await stageDrafts(platform, scope, [dashboardDraft((w) => (w[1].title = 'Pending (edited)'))]);
    const before = draftHash(await readOverlayRows(platform.db, scope.tenant, scope.package), scope.package);
    const e = await refused(applyFix(platform, { ...scope, patches: [patches[0]!.patchId] }));
    expect(e.message).toBe('a patch was offered on drafts that have changed since');
    expect(e.problems[0]).toMatchObject({ path: 'patches.0', message: expect.stringContaining('verify again') });
    expect(draftHash(await readOverlayRows(platform.db, scope.tenant, scope.package), scope.package)).toBe(before);
  });

  it('an unknown patch id, a stale draftVersion, patches from a verify of other drafts: each refused, nothing applied', async () => {
    const scope = await broken();
    const { answer, patches } = await offered(scope);
    const before = draftHash(await readOverlayRows(platform.db, scope.tenant, scope.package), scope.package);
    expect((await refused(applyFix(platform, { ...scope, patches: ['nope'] }))).message).toBe('an unknown patch id');
    // Well formed, this draft version, but no issue has that id.
    const ghost = `${answer.draftVersion.slice(0, 12)}.${'0'.repeat(16)}`;
    expect((await refused(applyFix(platform, { ...scope, patches: [ghost] }))).problems[0]!.message).toMatch(/^no issue at draft version .* has patch/);
    expect((await refused(applyFix(platform, { ...scope, patches: [patches[0]!.patchId], draftVersion: 'f'.repeat(32) }))).message).toBe(
      'the drafts changed since these patches were offered; nothing was applied',
    );
    // One good id and one unknown: nothing at all is applied.
    await refused(applyFix(platform, { ...scope, patches: [patches[0]!.patchId, ghost] }));
    expect(draftHash(await readOverlayRows(platform.db, scope.tenant, scope.package), scope.package)).toBe(before);
  });

  it('racing a stage_draft of the same artifact: either the patch lands on the drafts it was offered on, or it is refused — never over newer drafts', async () => {
    for (let n = 0; n < 6; n++) {
      const scope = await broken();
      const { patches } = await offered(scope);
      const edited = dashboardDraft((w) => (w[1].title = `edited ${n}`));
      const [fix, stage] = await Promise.allSettled([applyFix(platform, { ...scope, patches: [patches[0]!.patchId] }), stageDrafts(platform, scope, [edited])]);
      expect(stage.status).toBe('fulfilled');
      const body = (await verifyBuild(platform, scope)).issues;
      const stored = (await readOverlayRows(platform.db, scope.tenant, scope.package)).find((r) => r.state === 'draft' && r.type === 'dashboard')!.body as {
        widgets: Array<{ title?: string }>;
      };
      if (fix.status === 'rejected') expect(fix.reason).toBeInstanceOf(AnswerError);
      // The stage is never lost, whichever came first: a patch applied before it is replaced by it,
      // and a patch that would land after it finds other drafts than it was offered on and is refused.
      expect(stored.widgets[1]!.title).toBe(`edited ${n}`);
      expect(body.length).toBeGreaterThan(0);
    }
  });
});

describe('masked issues in a session', () => {
  it('an issue hidden behind a dangling_dataset is masked, not fixed; when the binding is repaired it persists, and is no oscillation', async () => {
    const scope = await broken();
    const session = await createSession(platform, { ...scope, goal: 'Track expenses', bounds: { maxRounds: 5, noProgressRounds: 5 } });
    // Round 0: widget 0 asks for a measure its dataset lacks (the fixer is off so it stays).
    const first = await verifyBuild(platform, { ...scope, session: session.id, fix: false });
    const measure = first.issues.find((i) => i.code === 'unknown_measure' && i.ref?.member === 'total')!;
    // Round 1: the agent rebinds widget 0 to a dataset that does not exist: its measure can no longer be checked.
    await stageDrafts(platform, scope, [dashboardDraft((w) => (w[0].dataset = 'exp_nowhere'))]);
    const second = await verifyBuild(platform, { ...scope, session: session.id, fix: false });
    const dangling = second.issues.find((i) => i.code === 'dangling_dataset' && i.ref?.member === 'total')!;
    expect(second.round!.diff.masked).toEqual([fingerprint(measure)]);
    expect(second.round!.diff.fixed).not.toContain(fingerprint(measure));
    expect(second.round!.maskedBy).toEqual({ [fingerprint(measure)]: fingerprint(dangling) });
    const answered = answerVerify(second, {}, 'summary');
    expect(answered.round!.masked).toEqual([{ id: fingerprint(measure), maskedBy: fingerprint(dangling) }]);
    expect(answered.issues.find((i) => i.id === fingerprint(dangling))!.masks).toContain('unknown_measure');
    // Round 2: still masked (carried over) — round 3: the binding repaired, the measure shows again: persisting, not reappeared.
    await stageDrafts(platform, scope, [
      dashboardDraft((w) => {
        w[0].dataset = 'exp_nowhere';
        w[1].title = 'x';
      }),
    ]);
    const third = await verifyBuild(platform, { ...scope, session: session.id, fix: false });
    expect(third.round!.diff.masked).toEqual([fingerprint(measure)]);
    await stageDrafts(platform, scope, [dashboardDraft(() => {})]);
    const fourth = await verifyBuild(platform, { ...scope, session: session.id, fix: false });
    expect(fourth.round!.diff.persisting).toContain(fingerprint(measure));
    expect(fourth.round!.diff.reappeared).toEqual([]);
    expect(fourth.session!.stopReason).not.toBe('oscillation');
  });
});
