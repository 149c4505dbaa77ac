import { join } from 'node:path';
import { fingerprint } from '@bvl/build-issue';
import { readSource } from '@bvl/metadata';
import { listDrafts, withPackageLock } from '@bvl/platform';
import { verify } from '@bvl/verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE, openTestApp, stageFolder } from '../test/test-app.ts';
import { PublishResultSchema, SessionSchema, VerifyResultSchema, WriteResultSchema } from './schemas.ts';

let t: Awaited<ReturnType<typeof openTestApp>>;
beforeAll(async () => {
  t = await openTestApp();
});
afterAll(() => t.close());

// A write answer describes its issues as open objects (tools/list budget): read them as the compact issue they are.
type IssueFields = { code: string; artifact: { name: string }; path?: string };
const codes = (issues: ReadonlyArray<IssueFields> | ReadonlyArray<Record<string, unknown>>) =>
  (issues as ReadonlyArray<IssueFields>).map((i) => [i.code, i.artifact.name, i.path]);

/** A tenant with the example app staged over HTTP (and published, when asked). */
async function withExample(options: { publish?: boolean } = {}) {
  const a = await t.tenant();
  const staged = await stageFolder(a.request, 'app', join(EXAMPLE, 'app'));
  expect(staged.every((s) => s.status === 200)).toBe(true);
  if (options.publish) expect((await a.request('app/publish', { method: 'POST' })).status).toBe(200);
  return a;
}

describe('drafts', () => {
  it('PUT stages one artifact as the stack format has it and answers with the L1 issues that write caused', async () => {
    const a = await withExample();
    const broken = JSON.parse(await (await import('node:fs/promises')).readFile(join(EXAMPLE, 'drafts/dashboards/exp_spending.json'), 'utf8'));
    const r = await a.request('app/drafts/dashboard/exp_spending', { method: 'PUT', json: broken });
    expect(r.status).toBe(200);
    const body = WriteResultSchema.parse(await r.json());
    // Incidents #1 and #2: new since the write; the render-layer #6 is not an L1 issue of this write.
    expect(codes(body.issues)).toEqual([
      ['unknown_measure', 'exp_spending', '/widgets/0/values/0'],
      ['dangling_dataset', 'exp_spending', '/widgets/2/dataset'],
    ]);
    expect(body).toMatchObject({ staged: 1, artifacts: [{ type: 'dashboard', name: 'exp_spending' }], resolved: 0, errors: 2 });

    // Writing the same body again causes nothing new; restoring the original clears both.
    const again = (await (await a.request('app/drafts/dashboard/exp_spending', { method: 'PUT', json: broken })).json()) as { issues: unknown[] };
    expect(again.issues).toEqual([]);
    const original = JSON.parse(await (await import('node:fs/promises')).readFile(join(EXAMPLE, 'app/dashboards/exp_spending.json'), 'utf8'));
    const fixed = (await (await a.request('app/drafts/dashboard/exp_spending', { method: 'PUT', json: original })).json()) as Record<string, unknown>;
    expect(fixed).toMatchObject({ issues: [], resolved: 2, errors: 0 });
  });

  it('a view container expands into its views; staging it again without one view discards that view', async () => {
    const a = await t.tenant();
    const container = JSON.parse(await (await import('node:fs/promises')).readFile(join(EXAMPLE, 'app/views/exp_expense.json'), 'utf8'));
    const r = (await (await a.request('p/drafts/view/exp_expense', { method: 'PUT', json: container })).json()) as { artifacts: { name: string }[] };
    expect(r.artifacts.map((x) => x.name)).toEqual(['exp_expense.board', 'exp_expense.by_day', 'exp_expense.default', 'exp_expense.create']);
    const { by_day: _gone, ...rest } = container.listViews;
    await a.request('p/drafts/view/exp_expense', { method: 'PUT', json: { ...container, listViews: rest } });
    const drafts = (await (await a.request('p/drafts')).json()) as { drafts: { name: string }[] };
    expect(drafts.drafts.map((d) => d.name)).toEqual(['exp_expense.board', 'exp_expense.create', 'exp_expense.default']);
    const one = (await (await a.request('p/drafts/view/exp_expense.board')).json()) as Record<string, unknown>;
    expect(one).toMatchObject({ type: 'view', name: 'exp_expense.board', tombstone: false, view: { object: 'exp_expense', key: 'board', viewKind: 'list' } });
    expect((one.body as { type: string }).type).toBe('kanban');
  });

  it('a body that names another artifact than the path, or that the loader refuses, is a 400 and stages nothing', async () => {
    const a = await t.tenant();
    const wrong = await a.request('p/drafts/object/exp_a', { method: 'PUT', json: { name: 'exp_b', fields: {} } });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_request', problems: [{ path: 'body.name' }] });
    let deep: unknown = 1;
    for (let i = 0; i < 80; i++) deep = { d: deep };
    const refused = await a.request('p/drafts/object/exp_a', { method: 'PUT', json: { name: 'exp_a', deep } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/nested more than 64 levels/);
    expect(await listDrafts(t.platform, { tenant: a.id, package: 'p' })).toEqual([]);
  });

  it('lists, reads, discards one (404 when gone) and all', async () => {
    const a = await withExample();
    const list = (await (await a.request('app/drafts')).json()) as { drafts: { type: string; name: string }[] };
    expect(list.drafts.length).toBe(14);
    expect((await a.request('app/drafts/seed/exp_category', { method: 'DELETE' })).status).toBe(200);
    const gone = await a.request('app/drafts/seed/exp_category', { method: 'DELETE' });
    expect(gone.status).toBe(404);
    expect((await a.request('app/drafts/seed/exp_category')).status).toBe(404);
    expect(await (await a.request('app/drafts', { method: 'DELETE' })).json()).toEqual({ discarded: 13 });
  });

  it('a tombstone retires a published artifact and answers with what now dangles; retiring what is not published is a 400', async () => {
    const a = await withExample({ publish: true });
    const r = await a.request('app/tombstones/dataset/exp_expense_metrics', { method: 'PUT' });
    expect(r.status).toBe(200);
    const body = WriteResultSchema.parse(await r.json());
    expect(codes(body.issues)).toEqual([0, 1, 2, 3].map((w) => ['dangling_dataset', 'exp_spending', `/widgets/${w}/dataset`]));
    const drafts = (await (await a.request('app/drafts')).json()) as { drafts: { tombstone: boolean }[] };
    expect(drafts.drafts).toEqual([expect.objectContaining({ type: 'dataset', name: 'exp_expense_metrics', tombstone: true })]);
    const nothing = await a.request('app/tombstones/dataset/exp_nothing', { method: 'PUT' });
    expect(nothing.status).toBe(400);
    expect(((await nothing.json()) as { message: string }).message).toMatch(/nothing to retire/);
  });
});

describe('verify, publish, health', () => {
  it('verify is exactly verify() over published ⊕ drafts — the function bvl verify runs', async () => {
    const a = await withExample({ publish: true });
    await stageFolder(a.request, 'app', join(EXAMPLE, 'drafts'));
    const r = await a.request('app/verify', { method: 'POST' });
    expect(r.status).toBe(200);
    const body = VerifyResultSchema.parse(await r.json());
    const files = verify(await readSource(join(EXAMPLE, 'app')), await readSource(join(EXAMPLE, 'drafts'), { draft: true }));
    // Over HTTP the full form: every BuildIssue field, plus the issue's id (its fingerprint), its patch id and what it masks.
    expect(body.issues.map(({ id: _id, patchId: _p, masks: _m, ...issue }) => issue)).toEqual(JSON.parse(JSON.stringify(files.issues)));
    expect(body.issues.map((i) => i.id)).toEqual(files.issues.map(fingerprint));
    expect(body).toMatchObject({ ok: false, publishable: false, session: null, fixes: [], draftVersion: expect.stringMatching(/^[0-9a-f]{32}$/) });
    // The card refers to the issues by id: each issue is in the answer once.
    expect((body.card as { byArtifact: Array<{ issues: string[] }> }).byArtifact.flatMap((g) => g.issues).sort()).toEqual(body.issues.map((i) => i.id).sort());
    expect(t.logger.entries().at(-1)).toMatchObject({ method: 'POST', status: 200, tenant: a.id, package: 'app', outcome: 'errors' });
  });

  it('publish with an L1/L2 error is refused (409), lists the errors and publishes nothing', async () => {
    const a = await withExample();
    await stageFolder(a.request, 'app', join(EXAMPLE, 'drafts'));
    const r = await a.request('app/publish', { method: 'POST', json: {} });
    expect(r.status).toBe(409);
    const body = PublishResultSchema.parse(await r.json());
    expect(body).toMatchObject({ outcome: 'refused', published: false, ok: false });
    expect(body.issues.filter((i) => i.severity === 'error').map((i) => i.code)).toEqual(['unknown_measure', 'dangling_dataset', 'invalid_artifact']);
    const health = (await (await a.request('app/health')).json()) as { card: { published: boolean }; line: string };
    expect(health.card.published).toBe(false);
    expect(health.line).toBe('✗ structure (3 errors) · ✓ renders · – rows (not published) · – widgets (not published)');
  });

  it('a clean publish answers 200 with the probes; the card then has rows and widgets; HTML for Accept: text/html', async () => {
    const a = await withExample();
    const r = await a.request('app/publish', { method: 'POST' });
    expect(r.status).toBe(200);
    const body = PublishResultSchema.parse(await r.json());
    expect(body).toMatchObject({ outcome: 'published', published: true, ok: true, probes: { rows: 9 } });
    const health = (await (await a.request('app/health')).json()) as { line: string };
    expect(health.line).toBe('✓ structure · ✓ renders · ✓ 9 rows · ✓ 4/4 widgets return data');
    const html = await a.request('app/health', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('Published and healthy');
  });

  it('two concurrent publishes of one package serialize: a publish waits for the package lock, then both publish', async () => {
    const a = await withExample();
    let released = false;
    let answered = false;
    let pending: Promise<Response> | undefined;
    await withPackageLock(t.platform, { tenant: a.id, package: 'app' }, async () => {
      pending = Promise.resolve(a.request('app/publish', { method: 'POST' })).then((res) => {
        answered = true;
        expect(released).toBe(true);
        return res;
      });
      await new Promise((r) => setTimeout(r, 1500));
      expect(answered).toBe(false);
      released = true;
    });
    expect((await pending!).status).toBe(200);
    // Two at once over staged drafts: one publishes them, the other waits its turn and finds nothing
    // left — never both promoting the same drafts.
    await stageFolder(a.request, 'app', join(EXAMPLE, 'app'));
    const both = await Promise.all([a.request('app/publish', { method: 'POST' }), a.request('app/publish', { method: 'POST' })]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const outcomes = await Promise.all(both.map(async (r) => ((await r.json()) as { outcome: string }).outcome));
    expect(outcomes.sort()).toEqual(['nothing_to_publish', 'published']);
  });
});

describe('sessions', () => {
  it('create, verify in the session (the fixer runs, a round is recorded), read, rounds, list, cancel', async () => {
    const a = await withExample({ publish: true });
    await stageFolder(a.request, 'app', join(EXAMPLE, 'drafts'));
    const created = await a.request('app/sessions', { method: 'POST', json: { goal: 'Track expenses with a spending dashboard', bounds: { maxRounds: 3 } } });
    expect(created.status).toBe(201);
    const s = SessionSchema.parse(await created.json());
    expect(s).toMatchObject({ status: 'open', rounds: 0, bounds: { maxRounds: 3 } });
    const v = (await (await a.request('app/verify', { method: 'POST', json: { session: s.id, usage: { tokensIn: 1200, tokensOut: 300 } } })).json()) as any;
    expect(v.fixes.map((f: { code: string }) => f.code)).toEqual(['unknown_measure', 'invalid_artifact']);
    expect(codes(v.issues)).toEqual([['dangling_dataset', 'exp_spending', '/widgets/2/dataset']]);
    expect(v.session).toMatchObject({ id: s.id, rounds: 1, next: 'repair', usage: { tokensIn: 1200, tokensOut: 300 } });
    expect(t.logger.entries().at(-1)).toMatchObject({ session: s.id, round: 0, outcome: 'errors' });
    const rounds = (await (await a.request(`app/sessions/${s.id}/rounds`)).json()) as { rounds: { round: number; fixes: unknown[] }[] };
    expect(rounds.rounds.map((r) => [r.round, r.fixes.length])).toEqual([[0, 2]]);
    const health = (await (await a.request(`app/health?session=${s.id}`)).json()) as { card: { session: { rounds: unknown[] } } };
    expect(health.card.session.rounds).toHaveLength(1);
    expect(((await (await a.request('app/sessions')).json()) as { sessions: { id: string }[] }).sessions.map((x) => x.id)).toEqual([s.id]);
    const cancelled = (await (await a.request(`app/sessions/${s.id}/cancel`, { method: 'POST' })).json()) as Record<string, unknown>;
    expect(cancelled).toMatchObject({ status: 'stopped', stopReason: 'cancelled', next: 'stop' });
    // A cancelled session takes no publish: 409, nothing published.
    const refused = await a.request('app/publish', { method: 'POST', json: { session: s.id } });
    expect([refused.status, await refused.json()]).toEqual([
      409,
      {
        error: 'session_stopped',
        message: `session "${s.id}" is stopped (cancelled): a stopped session takes no more rounds and no publish, so nothing was published. Start a new session to go on building.`,
      },
    ]);
  });

  it('an unknown session, or one of another package, is a 404; a bad goal or bound is a 400', async () => {
    const a = await t.tenant();
    const s = (await (await a.request('one/sessions', { method: 'POST', json: { goal: 'g' } })).json()) as { id: string };
    expect((await a.request('two/sessions/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await a.request(`two/sessions/${s.id}`)).status).toBe(404);
    expect((await a.request(`two/sessions/${s.id}/rounds`)).status).toBe(404);
    expect((await a.request('two/verify', { method: 'POST', json: { session: 'not-a-session' } })).status).toBe(404);
    const bad = await a.request('one/sessions', { method: 'POST', json: { goal: '', bounds: { maxRounds: 999 } } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { problems: { path: string }[] }).problems.map((p) => p.path)).toEqual(['body.goal', 'body.bounds.maxRounds']);
  });
});

describe('openapi', () => {
  it('is generated from the routes: every path, the bearer scheme, the shared schemas', async () => {
    const doc = (await (await t.app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>>; components: Record<string, any> };
    const base = '/v1/tenants/{tenant}/packages/{package}';
    expect(
      Object.entries(doc.paths)
        .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(base, '…')}`))
        .sort(),
    ).toEqual([
      'DELETE …/drafts',
      'DELETE …/drafts/{type}/{name}',
      'GET /healthz',
      'GET /v1/tenants/{tenant}/policy',
      'GET …/drafts',
      'GET …/drafts/{type}/{name}',
      'GET …/health',
      'GET …/publishes/{id}',
      'GET …/sessions',
      'GET …/sessions/{id}',
      'GET …/sessions/{id}/rounds',
      'GET …/sessions/{id}/transcript',
      'POST …/apply-fix',
      'POST …/drafts',
      'POST …/publish',
      'POST …/review',
      'POST …/sessions',
      'POST …/sessions/{id}/cancel',
      'POST …/verify',
      'PUT /v1/tenants/{tenant}/policy',
      'PUT …/drafts/{type}/{name}',
      'PUT …/tombstones/{type}/{name}',
    ]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Issue', 'VerifyAnswer', 'PublishAnswer', 'WriteAnswer', 'ApplyFixAnswer', 'Session', 'Error']),
    );
  });
});
