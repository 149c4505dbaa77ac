import { join } from 'node:path';
import { type ArtifactSet, type RawArtifact, readSource } from '@bvl/metadata';
import { latestProbeResult, type Platform, stageDrafts } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCardLine } from './format-card-text.ts';
import { publishBuild } from './run-publish-build.ts';
import { createSession, listRounds } from './run-session-store.ts';
import { verifyBuild } from './run-verify-build.ts';

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

function appDashboard(edit: (widgets: any[]) => void): RawArtifact {
  const d = app.artifacts.find((a) => a.type === 'dashboard')!;
  const body = structuredClone(d.body) as { widgets: any[] };
  edit(body.widgets);
  return { ...d, body };
}

describe('publishBuild', () => {
  it('is refused while L1/L2 has an error, lists them, and publishes nothing', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await stageDrafts(platform, scope, [...app.artifacts, ...drafts.artifacts]);
    const r = await publishBuild(platform, scope);
    expect(r).toMatchObject({ outcome: 'refused', published: false, ok: false });
    // Incident #6 (a list view of type "list") is refused by the spec: an error too, whatever objectui would draw.
    expect(r.issues.filter((i) => i.severity === 'error').map((i) => i.code)).toEqual(['unknown_measure', 'dangling_dataset', 'invalid_artifact']);
    expect(r.issues.filter((i) => i.severity === 'warning').map((i) => i.code)).toEqual([]);
    expect(await latestProbeResult(platform, scope)).toBeUndefined();
  });

  it('the whole loop: fixer, agent repair, gate, L3 probes stored; the session ends clean and the card says so', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await stageDrafts(platform, scope, [...app.artifacts, ...drafts.artifacts]);
    const session = await createSession(platform, { ...scope, goal: 'Track expenses with a spending dashboard' });
    const first = await verifyBuild(platform, { ...scope, session: session.id });
    expect(first.fixes).toHaveLength(2);
    expect(first.session?.next).toBe('repair');
    // The agent binds the widget to the dataset that exists.
    const fixedDashboard = drafts.artifacts.find((a) => a.type === 'dashboard')!;
    const body = structuredClone(fixedDashboard.body) as { widgets: any[] };
    body.widgets[0].values = ['total_amount'];
    body.widgets[2] = { ...body.widgets[2], dataset: 'exp_expense_metrics', values: ['approved_amount'] };
    await stageDrafts(platform, scope, [{ ...fixedDashboard, body }]);
    const second = await verifyBuild(platform, { ...scope, session: session.id });
    expect(second).toMatchObject({ publishable: true, session: { next: 'publish', status: 'open' } });

    const published = await publishBuild(platform, { ...scope, session: session.id });
    expect(published).toMatchObject({ outcome: 'published', published: true, ok: true, session: { status: 'stopped', stopReason: 'clean' } });
    expect(published.probes).toMatchObject({ checked: { widgets: 3 }, rows: 9 });
    expect(formatCardLine(published.card!)).toBe('✓ structure · ✓ renders · ✓ 9 rows · ✓ 3/3 widgets return data');
    const rounds = await listRounds(platform, { tenant: scope.tenant, id: session.id });
    expect(rounds.map((r) => [r.kind, r.stopReason])).toEqual([
      ['verify', null],
      ['verify', null],
      ['publish', 'clean'],
    ]);
    // verify_build now reports the latest L3 result with the static layers.
    const after = await verifyBuild(platform, scope);
    expect(after.card.published).toBe(true);
    expect(formatCardLine(after.card)).toBe('✓ structure · ✓ renders · ✓ 9 rows · ✓ 3/3 widgets return data');
  });

  it('L3 errors re-open the session for repair within its bounds (incident #4: a widget that returns nothing)', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const empty = appDashboard((w) => (w[1].filter = { status: 'archived' }));
    await stageDrafts(platform, scope, [...app.artifacts.filter((a) => a.type !== 'dashboard'), empty]);
    const session = await createSession(platform, { ...scope, goal: 'g' });
    expect((await verifyBuild(platform, { ...scope, session: session.id })).session?.next).toBe('publish');
    const r = await publishBuild(platform, { ...scope, session: session.id });
    expect(r).toMatchObject({ outcome: 'published', published: true, ok: false, session: { status: 'open', next: 'repair' } });
    expect(r.issues.map((i) => [i.code, i.ref?.member])).toEqual([['empty_query', 'by_status']]);
    expect(r.card?.layers.widgets).toMatchObject({ status: 'fail' });
    // The stored L3 result travels with the next verify.
    const v = await verifyBuild(platform, { ...scope, session: session.id });
    expect(v).toMatchObject({ ok: false, publishable: true });
    expect(v.issues.map((i) => i.code)).toEqual(['empty_query']);
  });
});
