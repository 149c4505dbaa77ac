import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestApp } from '../test/test-app.ts';
import { createToken, listTokens, revokeToken, tenantOfToken } from './run-tokens.ts';

let t: Awaited<ReturnType<typeof openTestApp>>;
beforeAll(async () => {
  t = await openTestApp();
});
afterAll(() => t.close());

describe('tokens', () => {
  it('are stored hashed: the secret is nowhere in the store, and only the exact token resolves to its tenant', async () => {
    const a = await t.tenant();
    const rows = await t.platform.db.selectFrom('bvl.api_tokens').selectAll().where('tenant_id', '=', a.id).execute();
    const secret = a.token.split('_').slice(2).join('_');
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(await tenantOfToken(t.platform, a.token)).toBe(a.id);
    const flipped = a.token.slice(0, -1) + (a.token.endsWith('A') ? 'B' : 'A');
    for (const bad of [flipped, `${a.token}x`, a.token.toUpperCase(), '', 'bvl_', 'Bearer x']) expect(await tenantOfToken(t.platform, bad)).toBeUndefined();
  });

  it('can be listed (never the secret) and revoked', async () => {
    const a = await t.tenant();
    const second = await createToken(t.platform, { tenant: a.id, label: 'ci' });
    expect((await listTokens(t.platform, a.id)).map((x) => [x.label, x.revokedAt]).sort()).toEqual([
      ['', null],
      ['ci', null],
    ]);
    expect(await revokeToken(t.platform, { tenant: a.id, id: second.info.id })).toBe(true);
    expect(await revokeToken(t.platform, { tenant: a.id, id: second.info.id })).toBe(false);
    expect(await tenantOfToken(t.platform, second.token)).toBeUndefined();
    const r = await a.request('p/drafts', { headers: { authorization: `Bearer ${second.token}` } });
    expect(r.status).toBe(401);
  });
});

describe('auth', () => {
  it('no token or a bad token is a 401 with an RFC 6750 challenge; the message says how to get one', async () => {
    const a = await t.tenant();
    // No credentials (or another scheme): the bare challenge, no error code (RFC 6750 §3.1).
    for (const headers of [{}, { authorization: `Basic ${a.token}` }] as Array<Record<string, string>>) {
      for (const path of [`${a.base}/p/drafts`, '/mcp']) {
        const r = await t.app.request(path, { method: path === '/mcp' ? 'POST' : 'GET', headers });
        expect(r.status, path).toBe(401);
        expect(r.headers.get('www-authenticate')).toBe('Bearer realm="bvl"');
        expect(await r.json()).toMatchObject({ error: 'unauthorized', message: expect.stringMatching(/bvl token create/) });
      }
    }
    // A token that is not valid: error="invalid_token" with a description, on the API and on /mcp.
    for (const token of ['bvl_0000000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'x', `${a.token}x`]) {
      for (const path of [`${a.base}/p/drafts`, '/mcp']) {
        const r = await t.app.request(path, { method: path === '/mcp' ? 'POST' : 'GET', headers: { authorization: `Bearer ${token}` } });
        expect(r.status, `${path} ${token}`).toBe(401);
        expect(r.headers.get('www-authenticate')).toBe(
          'Bearer realm="bvl", error="invalid_token", error_description="the bearer token is not valid: unknown, malformed or revoked"',
        );
        expect(await r.json()).toMatchObject({ error: 'unauthorized', message: expect.stringMatching(/^the bearer token is not valid/) });
      }
    }
    // A Bearer header that is not one token is a malformed request: 400 invalid_request.
    for (const authorization of ['Bearer', 'Bearer ', 'Bearer two tokens']) {
      const r = await t.app.request(`${a.base}/p/drafts`, { headers: { authorization } });
      expect(r.status, authorization).toBe(400);
      expect(r.headers.get('www-authenticate')).toBe(
        'Bearer realm="bvl", error="invalid_request", error_description="the Authorization header is not of the form Bearer <token>"',
      );
    }
  });

  it('a token of tenant A can neither read, write, verify, publish nor see the sessions of tenant B: 404, the same as an unknown route', async () => {
    const a = await t.tenant('a');
    const b = await t.tenant('b');
    await b.request('p/drafts/object/exp_thing', { method: 'PUT', json: { name: 'exp_thing', fields: { title: { type: 'text' } } } });
    const session = (await (await b.request('p/sessions', { method: 'POST', json: { goal: 'b builds' } })).json()) as { id: string };
    const put = (json: unknown) => ({ method: 'PUT', json });
    const attempts: Array<[string, string, string, RequestInit & { json?: unknown }]> = [
      ['list', 'GET', `${b.base}/p/drafts`, {}],
      ['read', 'GET', `${b.base}/p/drafts/object/exp_thing`, {}],
      ['write', 'PUT', `${b.base}/p/drafts/object/exp_other`, put({ name: 'exp_other', fields: {} })],
      ['discard', 'DELETE', `${b.base}/p/drafts`, {}],
      ['tombstone', 'PUT', `${b.base}/p/tombstones/object/exp_thing`, {}],
      ['verify', 'POST', `${b.base}/p/verify`, {}],
      ['publish', 'POST', `${b.base}/p/publish`, {}],
      ['health', 'GET', `${b.base}/p/health`, {}],
      ['session', 'GET', `${b.base}/p/sessions/${session.id}`, {}],
      ['sessions', 'GET', `${b.base}/p/sessions`, {}],
      ['cancel', 'POST', `${b.base}/p/sessions/${session.id}/cancel`, {}],
      ['a tenant that does not exist', 'GET', '/v1/tenants/nobody_here/packages/p/drafts', {}],
    ];
    for (const [what, method, path, init] of attempts) {
      const r = await a.request(path, { ...init, method });
      // Exactly what an unknown route answers: nothing says whether the tenant or the resource exists.
      expect({ what, status: r.status, body: await r.json() }).toEqual({
        what,
        status: 404,
        body: { error: 'not_found', message: `not found: ${method} ${path}` },
      });
    }
    // B's package is untouched, its session still open.
    const drafts = (await (await b.request('p/drafts')).json()) as { drafts: { name: string }[] };
    expect(drafts.drafts.map((d) => d.name)).toEqual(['exp_thing']);
    expect(((await (await b.request(`p/sessions/${session.id}`)).json()) as { status: string }).status).toBe('open');
    // A's own session id space does not contain B's session either.
    expect((await a.request(`p/sessions/${session.id}`)).status).toBe(404);
  });

  it('never writes a token to the log, whatever the request', async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    await a.request('p/drafts');
    await a.request(`${b.base}/p/drafts`);
    await a.request('p/drafts', { headers: { authorization: `Bearer ${a.token}x` } });
    await a.request('/mcp', {
      method: 'POST',
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    const log = t.logger.lines.join('\n');
    expect(log).toContain(a.id);
    for (const token of [a.token, b.token]) {
      expect(log).not.toContain(token);
      expect(log).not.toContain(token.split('_').slice(2).join('_'));
    }
  });
});
