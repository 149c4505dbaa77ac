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
    // Nothing was written, so the package does not exist.
    expect((await a.request('p/drafts')).status).toBe(404);
  });

  it('a key repeated past a depth the scan cannot reach is still a 400 (never a 500, never silence), and nothing is staged', async () => {
    const a = await t.tenant();
    const deep = `${'['.repeat(25_000)}1${']'.repeat(25_000)}`;
    const body = `{"name": "acct", "x": ${deep}, "name": "acct"}`;
    const r = await a.request('p/drafts/object/acct', { method: 'PUT', body, headers: { 'content-type': 'application/json' } });
    expect([r.status, await r.json()]).toEqual([
      400,
      {
        error: 'invalid_request',
        message: expect.stringMatching(/^the body repeats a key \(it writes more members than JSON keeps\) and nests too deep to say where/),
      },
    ]);
    expect((await a.request('p/drafts')).status).toBe(404);
  });

  it('a body over the limit is a 413, before anything is parsed or staged', async () => {
    const a = await t.tenant();
    const big = { name: 'exp_big', label: 'x'.repeat(70 * 1024) };
    const r = await a.request('p/drafts/object/exp_big', { method: 'PUT', json: big });
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ error: 'payload_too_large' });
    // Nothing was staged: the package was not even started.
    expect(await (await a.request('p/drafts')).json()).toMatchObject({ error: 'not_found' });
  });

  it('an unknown route is a 404 in the same JSON shape', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/v2/things'],
      ['GET', '/healthz/more'],
    ] as const) {
      const r = await t.app.request(path, { method });
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({ error: 'not_found', message: `not found: ${method} ${path}` });
    }
  });

  it('a known route asked with another method is a 405 with Allow', async () => {
    const a = await t.tenant();
    const cases: Array<[string, string, string]> = [
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', '/openapi.json', 'GET, HEAD'],
      ['GET', `${a.base}/p/verify`, 'POST'],
      ['PATCH', `${a.base}/p/drafts/object/x`, 'DELETE, GET, HEAD, PUT'],
      ['PATCH', `${a.base}/p/drafts`, 'DELETE, GET, HEAD, POST'],
      ['PUT', `${a.base}/p/sessions/abc/cancel`, 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await a.request(path, { method });
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.headers.get('allow')).toBe(allow);
      expect(await r.json()).toEqual({ error: 'method_not_allowed', message: `${method} is not a method of ${path}: it takes ${allow}` });
    }
    // Without a token the answer is still the 401 (auth comes first).
    expect((await t.app.request(`${a.base}/p/verify`)).status).toBe(401);
  });

  it('a body that is not JSON by its content type is a 415, and nothing is staged', async () => {
    const a = await t.tenant();
    const body = JSON.stringify({ name: 'exp_x', fields: {} });
    const cases: Array<[string, string, Record<string, string>]> = [
      ['PUT', 'p/drafts/object/exp_x', { 'content-type': 'text/plain' }],
      ['PUT', 'p/drafts/object/exp_x', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['POST', 'p/verify', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['POST', 'p/sessions', { 'content-type': 'multipart/form-data; boundary=x' }],
    ];
    // In-process requests carry no Content-Length of their own; over HTTP every body has one (or is chunked).
    const length = { 'content-length': String(Buffer.byteLength(body)) };
    for (const [method, path, headers] of cases) {
      const r = await a.request(path, { method, body, headers: { ...headers, ...length } });
      expect(r.status, `${method} ${path} ${headers['content-type']}`).toBe(415);
      expect(await r.json()).toMatchObject({
        error: 'unsupported_media_type',
        message: expect.stringMatching(/^the body must be JSON: send it with "Content-Type: application\/json"/),
      });
    }
    // A body with no content type at all (a Blob has none) is refused the same way.
    const untyped = await a.request('p/drafts/object/exp_x', { method: 'PUT', body: new Blob([body]), headers: length });
    expect(untyped.status).toBe(415);
    expect(await (await a.request('p/drafts')).json()).toMatchObject({ error: 'not_found' });
    // JSON with parameters, and +json types, are JSON.
    for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json']) {
      const r = await a.request('p/drafts/object/exp_x', { method: 'PUT', body, headers: { 'content-type': type, ...length } });
      expect(r.status, type).toBe(200);
    }
  });

  it('/healthz says the process and the database are up', async () => {
    const r = await t.app.request('/healthz');
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ ok: true, database: 'up', version: 'test' });
  });
});

describe('an unknown package', () => {
  it('is a 404 naming the closest packages for every read, verify and publish — over HTTP and MCP alike', async () => {
    const a = await t.tenant();
    await a.request('expense/drafts/object/exp_x', { method: 'PUT', json: { name: 'exp_x', fields: { title: { type: 'text' } } } });
    await a.request('reports/sessions', { method: 'POST', json: { goal: 'a reporting app' } });
    const reads: Array<[string, string]> = [
      ['POST', 'expnse/verify'],
      ['POST', 'expnse/publish'],
      ['GET', 'expnse/drafts'],
      ['GET', 'expnse/drafts/object/exp_x'],
      ['DELETE', 'expnse/drafts'],
      ['DELETE', 'expnse/drafts/object/exp_x'],
      ['GET', 'expnse/health'],
      ['GET', 'expnse/sessions'],
    ];
    for (const [method, path] of reads) {
      const r = await a.request(path, { method });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(await r.json()).toEqual({
        error: 'not_found',
        message:
          'package "expnse" does not exist: it has no draft, no published artifact and no build session. Did you mean "expense"? (its packages: expense, reports). A package starts with its first staged draft or build session.',
        suggestions: ['expense'],
      });
    }
    // Nothing close: no suggestion, the list still.
    const far = await (await a.request('zzz/verify', { method: 'POST' })).json();
    expect(far).toMatchObject({ error: 'not_found', message: expect.stringContaining('(its packages: expense, reports)') });
    expect(far).not.toHaveProperty('suggestions');
    // A package with only a session exists; so does one that starts with a staged draft.
    expect((await a.request('reports/verify', { method: 'POST' })).status).toBe(200);
    expect((await a.request('expense/verify', { method: 'POST' })).status).toBe(200);
    expect((await a.request('fresh/drafts/object/exp_y', { method: 'PUT', json: { name: 'exp_y', fields: {} } })).status).toBe(200);
    expect((await a.request('fresh/verify', { method: 'POST' })).status).toBe(200);
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
    await a.request('p/drafts/object/exp_x', { method: 'PUT', json: { name: 'exp_x', fields: { title: { type: 'text' } } } });
    const r = await a.request('p/verify', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '0' } });
    expect(r.status).toBe(200);
  });
});
