import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestApp } from '../test/test-app.ts';
import { isDatabaseUnavailable, toErrorResponse } from './to-error-response.ts';

let t: Awaited<ReturnType<typeof openTestApp>>;
beforeAll(async () => {
  t = await openTestApp({ bodyBytes: 64 * 1024 });
});
afterAll(() => t.close());

describe('bad input', () => {
  it('a zod-invalid body is a 400 listing every problem with its path', async () => {
    const a = await t.tenant();
    const r = await a.request('p/verify', { method: 'POST', json: { session: 7, usage: { tokensIn: -1 }, extra: true } });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: string; message: string; problems: { path: string; message: string }[] };
    expect(body.error).toBe('invalid_request');
    expect(body.problems.map((p) => p.path)).toEqual(['body.session', 'body.usage.tokensIn', 'body']);
    expect(body.message).toMatch(/^invalid body: body\.session: /);
    expect(body.problems[2]!.message).toMatch(/extra/);
  });

  it('bad path parameters are a 400 naming the parameter', async () => {
    const a = await t.tenant();
    const r = await a.request('Bad_Package!/drafts/widget/x', { method: 'PUT', json: {} });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { problems: { path: string }[] }).problems.map((p) => p.path)).toEqual(['param.package', 'param.type']);
    const body = await a.request('p/drafts/object/exp_x', { method: 'PUT', json: ['not', 'an', 'object'] });
    expect(body.status).toBe(400);
  });

  it('a body that is not JSON is a 400', async () => {
    const a = await t.tenant();
    const r = await a.request('p/verify', { method: 'POST', body: '{"session":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('a body with a key twice in one object is a 400 naming each repeat, and nothing is staged', async () => {
    const a = await t.tenant();
    const body = '{"name": "acct", "fields": {"n": {"type": "text"}},\n "fields": {"m": {"type": "text"}}}';
    const r = await a.request('p/drafts/object/acct', { method: 'PUT', body, headers: { 'content-type': 'application/json' } });
    expect([r.status, await r.json()]).toEqual([
      400,
      {
        error: 'invalid_request',
        message: 'the body has the key "fields" twice at body.fields: JSON keeps only the last value, so the first would be dropped without a word',
        problems: [{ path: 'body.fields', message: 'the key "fields" appears again at line 2, column 2 (first at line 1, column 18); keep one' }],
      },
    ]);
    expect(((await (await a.request('p/drafts')).json()) as { drafts: unknown[] }).drafts).toEqual([]);
  });

  it('a body over the limit is a 413, before anything is parsed or staged', async () => {
    const a = await t.tenant();
    const big = { name: 'exp_big', label: 'x'.repeat(70 * 1024) };
    const r = await a.request('p/drafts/object/exp_big', { method: 'PUT', json: big });
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ error: 'payload_too_large' });
    expect(((await (await a.request('p/drafts')).json()) as { drafts: unknown[] }).drafts).toEqual([]);
  });

  it('an unknown route is a 404 in the same JSON shape', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/v2/things'],
      ['POST', '/healthz'],
    ] as const) {
      const r = await t.app.request(path, { method });
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({ error: 'not_found', message: `not found: ${method} ${path}` });
    }
  });

  it('/healthz says the process and the database are up', async () => {
    const r = await t.app.request('/healthz');
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ ok: true, database: 'up', version: 'test' });
  });
});

describe('toErrorResponse', () => {
  it('tells an unreachable database from a bug', () => {
    const refused = Object.assign(new AggregateError([Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })]), {
      code: 'ECONNREFUSED',
    });
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    for (const e of [refused, shutdown, new Error('Connection terminated unexpectedly'), new Error('timeout exceeded when trying to connect')]) {
      expect(isDatabaseUnavailable(e)).toBe(true);
      expect(toErrorResponse(e).status).toBe(503);
    }
    for (const e of [new Error('boom'), Object.assign(new Error('syntax error'), { code: '42601' }), 'a string']) {
      expect(isDatabaseUnavailable(e)).toBe(false);
      expect(toErrorResponse(e)).toMatchObject({ status: 500, body: { error: 'internal' } });
    }
  });
});

describe('lenient where it costs nothing', () => {
  it('an empty body sent as JSON means no options', async () => {
    const a = await t.tenant();
    const r = await a.request('p/verify', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '0' } });
    expect(r.status).toBe(200);
  });
});
