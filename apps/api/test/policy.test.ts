// The tenant policy over HTTP and MCP, as `bvl serve` sets it up (sessions required by default):
// a verify or publish without a session is a clear 428 naming how to open one; a session asking
// more than the policy allows is capped and says so; a package's sessions share one window, so a
// stopped session cannot be replaced by a fresh one (429 with Retry-After); a tenant token only
// tightens its policy; an operator's change racing an open session never loosens it.
import { join } from 'node:path';
import { putTenantPolicy } from '@bvl/verify-build';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverPolicyFromEnv } from '../src/main.ts';
import { PolicySchema, SessionSchema } from '../src/schemas.ts';
import { EXAMPLE, openTestApp, stageFolder } from './test-app.ts';

let t: Awaited<ReturnType<typeof openTestApp>>;
beforeAll(async () => {
  t = await openTestApp(undefined, { policy: serverPolicyFromEnv({}) });
});
afterAll(() => t.close());

/** A tenant with the example app and the agent's broken drafts staged. */
async function withDrafts() {
  const a = await t.tenant();
  await stageFolder(a.request, 'app', join(EXAMPLE, 'app'));
  await stageFolder(a.request, 'app', join(EXAMPLE, 'drafts'));
  return a;
}
const post = async (a: Awaited<ReturnType<typeof withDrafts>>, path: string, json: unknown): Promise<Response> => a.request(path, { method: 'POST', json });

describe('requireSession (on by default for bvl serve)', () => {
  it('verify and publish without a session are a 428 naming how to open one; with a session they run', async () => {
    const a = await withDrafts();
    for (const op of ['verify', 'publish']) {
      const r = await a.request(`app/${op}`, { method: 'POST' });
      expect(r.status).toBe(428);
      const body = (await r.json()) as { error: string; message: string };
      expect(body.error).toBe('session_required');
      expect(body.message).toContain(`requires a build session to ${op}: open one with create_session (POST /v1/tenants/${a.id}/packages/app/sessions`);
    }
    const s = (await (await post(a, 'app/sessions', { goal: 'Track expenses' })).json()) as { id: string };
    expect((await post(a, 'app/verify', { session: s.id })).status).toBe(200);
  });

  it('over MCP the same refusal is the tool error', async () => {
    const a = await withDrafts();
    const r = await a.request('/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream' },
      json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'verify_build', arguments: { package: 'app' } } },
    });
    const body = (await r.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0]!.text).toMatch(/^session_required: tenant "[^"]+" requires a build session to verify: open one with create_session/);
  });

  it('a tenant may turn it off only through the operator; GET shows what is in force', async () => {
    const a = await withDrafts();
    const loosen = await a.request(`/v1/tenants/${a.id}/policy`, { method: 'PUT', json: { requireSession: false } });
    expect(loosen.status).toBe(403);
    expect(((await loosen.json()) as { message: string }).message).toContain('loosens it (requireSession: true → false)');
    await putTenantPolicy(t.platform, a.id, { requireSession: false });
    const got = PolicySchema.parse(await (await a.request(`/v1/tenants/${a.id}/policy`)).json());
    expect(got).toMatchObject({ policy: { requireSession: false }, effective: { requireSession: false }, version: 1 });
    expect((await a.request('app/verify', { method: 'POST' })).status).toBe(200);
  });
});

describe('bounds a client cannot raise', () => {
  it('a session asking more gets the maximum and says so; a bad policy is a 400 naming the field', async () => {
    const a = await withDrafts();
    const put = await a.request(`/v1/tenants/${a.id}/policy`, { method: 'PUT', json: { maximums: { maxRounds: 2, budgetUsd: 0.5 } } });
    expect(put.status).toBe(200);
    const s = SessionSchema.parse(await (await post(a, 'app/sessions', { goal: 'g', bounds: { maxRounds: 40, budgetUsd: 9 } })).json());
    expect(s).toMatchObject({
      bounds: { maxRounds: 2, budgetUsd: 0.5 },
      capped: ["maxRounds: asked 40, the tenant's maximum is 2", "budgetUsd: asked 9, the tenant's maximum is 0.5"],
    });
    const bad = await a.request(`/v1/tenants/${a.id}/policy`, { method: 'PUT', json: { maximums: { maxRounds: 'many' } } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/maximums\.maxRounds/);
  });

  it('a stopped session cannot be replaced by a fresh one within the window: capped, then 429 with Retry-After', async () => {
    const a = await withDrafts();
    await a.request(`/v1/tenants/${a.id}/policy`, { method: 'PUT', json: { maximums: { maxRounds: 1 }, windowMs: 3_600_000 } });
    const s = (await (await post(a, 'app/sessions', { goal: 'g', bounds: { maxRounds: 1 } })).json()) as { id: string };
    // Round 0 stops nothing (errors to repair); cancelling frees the one round it did not use.
    expect((await post(a, 'app/verify', { session: s.id, fix: false })).status).toBe(200);
    await a.request(`app/sessions/${s.id}/cancel`, { method: 'POST' });
    const next = SessionSchema.parse(await (await post(a, 'app/sessions', { goal: 'g', bounds: { maxRounds: 1 } })).json());
    expect(next.bounds).toMatchObject({ maxRounds: 0 });
    expect((next as { capped?: string[] }).capped?.[0]).toMatch(/^maxRounds: capped at 0: package sessions of the last 60 min hold 1 of the 2 verify rounds/);
    const refused = await post(a, 'app/sessions', { goal: 'g' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3600');
    expect(((await refused.json()) as { error: string; message: string }).message).toMatch(
      /^no new session for package "app" now: .*hold 2 of the 2 verify rounds.*One can open in 3600 s \(at 2026-03-15T11:00:00\.000Z\)/,
    );
  });

  it('an operator loosening the policy while a session runs never loosens that session', async () => {
    const a = await withDrafts();
    await a.request(`/v1/tenants/${a.id}/policy`, { method: 'PUT', json: { maximums: { maxRounds: 1 } } });
    const s = (await (await post(a, 'app/sessions', { goal: 'g', bounds: { maxRounds: 5 } })).json()) as { id: string };
    // The policy change and the session's verifies race; whatever the order, the session keeps maxRounds 1.
    const [, ...answers] = await Promise.all([
      putTenantPolicy(t.platform, a.id, { maximums: { maxRounds: 50 } }),
      post(a, 'app/verify', { session: s.id, fix: false }).then((r) => r.json() as Promise<{ session: { remaining: { repairRounds: number } } }>),
      (async () => {
        await a.request('app/drafts/dashboard/exp_spending', {
          method: 'PUT',
          json: {
            ...JSON.parse(await (await import('node:fs/promises')).readFile(join(EXAMPLE, 'drafts/dashboards/exp_spending.json'), 'utf8')),
            label: 'Spend',
          },
        });
        return (await post(a, 'app/verify', { session: s.id, fix: false })).json() as Promise<{ session: { remaining: { repairRounds: number } } }>;
      })(),
    ]);
    for (const r of answers) expect(r.session.remaining.repairRounds).toBeLessThanOrEqual(1);
    const after = SessionSchema.parse(await (await a.request(`app/sessions/${s.id}`)).json());
    expect(after).toMatchObject({ bounds: { maxRounds: 1 } });
    expect(after.repairRounds as number).toBeLessThanOrEqual(1);
  });
});
