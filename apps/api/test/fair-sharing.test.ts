// Fair sharing, deterministically: a tenant's turns are held through the app's own limiter (the
// test takes them, as a running request would), so what queues, what is refused with 429 and what
// leaves the queue does not depend on timing. The CLI's input bounds on drafts staged over HTTP and
// MCP: 413 naming the artifact, the bound and the figure, nothing written. PGlite and PostgreSQL.
import type { AddressInfo } from 'node:net';
import { INPUT_LIMITS } from '@bvl/metadata';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAVY_BODY_BYTES } from '../src/create-app.ts';
import { KEEP_ALIVE_MS } from '../src/main.ts';
import { TOO_MANY_REQUESTS_RPC } from '../src/mcp/gate-tool-calls.ts';
import { TenantLimiter } from '../src/tenant-limiter.ts';
import { openTestApp } from './test-app.ts';

const limiter = new TenantLimiter({ concurrency: 1, queue: 1, queueWaitMs: 20_000 });
const heavyLimiter = new TenantLimiter({ concurrency: 1, queue: 1, queueWaitMs: 20_000 });
let t: Awaited<ReturnType<typeof openTestApp>>;
let server: ReturnType<typeof serve>;
let url: string;

beforeAll(async () => {
  t = await openTestApp(undefined, { tenantLimiter: limiter, heavyLimiter });
  server = await new Promise<ReturnType<typeof serve>>((done) => {
    const s = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => done(s));
  });
  // As main.ts: the client closes idle sockets first, never the server mid-reuse.
  (server as { keepAliveTimeout?: number }).keepAliveTimeout = KEEP_ALIVE_MS;
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((done) => {
    server?.close(() => done());
    (server as { closeAllConnections?: () => void })?.closeAllConnections?.();
  });
  await t?.close();
});

/** Resolves once `check` holds (polled every 10 ms, at most 10 s). */
async function until(check: () => boolean, what: string) {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A tenant with package `app` (one small object staged). */
async function tenantWithPackage(label: string) {
  const a = await t.tenant(label);
  const r = await a.request('app/drafts/object/note', { method: 'PUT', json: { fields: { title: { type: 'text' } } } });
  expect(r.status).toBe(200);
  const at = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${a.token}`);
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${url}${path.startsWith('/') ? path : `${a.base}/${path}`}`, {
      ...init,
      headers,
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  };
  return { ...a, at };
}

/** A JSON-RPC batch to /mcp. */
async function mcpBatch(token: string, messages: object[]) {
  const r = await t.app.request('/mcp', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(messages),
  });
  const json = (await r.json()) as unknown;
  // A batch of one is answered with one message.
  return {
    status: r.status,
    body: (Array.isArray(json) ? json : [json]) as Array<{ id: number; result?: any; error?: { code: number; message: string; data?: any } }>,
  };
}

const call = (id: number, name: string, args: object) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('a tenant past its share', () => {
  it('queues up to the bound, then answers 429 with Retry-After in the API error format; another tenant runs beside it', async () => {
    const hog = await tenantWithPackage('hog');
    const other = await tenantWithPackage('other');
    const end = await limiter.acquire(hog.id);
    try {
      const queued = hog.at('app/verify', { method: 'POST' });
      await until(() => limiter.load(hog.id).queued === 1, 'the verify waits its turn');
      const refused = await hog.at('app/drafts', { method: 'GET' });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await refused.json()).toEqual({
        error: 'too_many_requests',
        message: expect.stringMatching(
          new RegExp(
            `^tenant "${hog.id}" already has 1 request\\(s\\) running and 1 waiting, the most this server takes per tenant \\(1 running, 1 waiting\\); retry after \\d+ s$`,
          ),
        ),
      });
      // The other tenant is not behind the hog.
      expect((await other.at('app/verify', { method: 'POST' })).status).toBe(200);
      // /healthz never queues.
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      end();
      expect((await queued).status).toBe(200);
    } finally {
      end();
    }
    await until(() => limiter.load(hog.id).running === 0, 'every turn ended');
    expect(t.logger.entries().filter((e) => e.outcome === 'too_many_requests')).toHaveLength(1);
  });

  it('a queued request whose client disconnects leaves the queue, and never runs', async () => {
    const a = await tenantWithPackage('gone');
    const end = await limiter.acquire(a.id);
    const gone = new AbortController();
    const request = a.at('app/drafts/object/late', { method: 'PUT', json: { fields: {} }, signal: gone.signal }).catch((e: Error) => e);
    await until(() => limiter.load(a.id).queued === 1, 'the PUT waits its turn');
    gone.abort();
    expect(await request).toBeInstanceOf(Error);
    await until(() => limiter.load(a.id).queued === 0, 'the PUT left the queue');
    // The queue has room again: a request queues (not 429) and runs once the turn ends.
    const next = a.at('app/drafts', { method: 'GET' });
    await until(() => limiter.load(a.id).queued === 1, 'the next request waits');
    end();
    const drafts = (await (await next).json()) as { drafts: Array<{ name: string }> };
    expect(drafts.drafts.map((d) => d.name)).toEqual(['note']);
    await until(() => limiter.load(a.id).running === 0, 'every turn ended');
    expect(t.logger.entries().some((e) => e.outcome === 'client_closed')).toBe(true);
  });

  it('an MCP batch counts as its calls: past the queue a call is a JSON-RPC error -32000 with code and retryAfter', async () => {
    const a = await tenantWithPackage('batch');
    const end = await limiter.acquire(a.id);
    let answer: Promise<Awaited<ReturnType<typeof mcpBatch>>>;
    try {
      answer = mcpBatch(a.token, [
        call(1, 'list_drafts', { package: 'app' }),
        call(2, 'list_drafts', { package: 'app' }),
        call(3, 'verify_build', { package: 'app' }),
      ]);
      // One call waits (the queue holds 1); the other two are refused at once.
      await until(() => limiter.load(a.id).queued === 1, 'one call waits');
    } finally {
      end();
    }
    const { status, body } = await answer;
    expect(status).toBe(200);
    const byId = new Map(body.map((m) => [m.id, m]));
    expect(byId.get(1)?.result?.structuredContent?.drafts).toHaveLength(1);
    for (const id of [2, 3]) {
      expect(byId.get(id)?.error).toEqual({
        code: TOO_MANY_REQUESTS_RPC,
        message: expect.stringMatching(/^too_many_requests: tenant ".+" already has 1 request\(s\) running and 1 waiting/),
        data: { code: 'too_many_requests', retryAfter: expect.any(Number) },
      });
    }
    await until(() => limiter.load(a.id).running === 0, 'every turn ended');
  });

  it('a batch within the share runs every call (one at a time for this tenant)', async () => {
    const a = await tenantWithPackage('small_batch');
    const { body } = await mcpBatch(a.token, [call(1, 'list_drafts', { package: 'app' }), call(2, 'list_drafts', { package: 'app' })]);
    expect(body.map((m) => [m.id, m.error?.code ?? 'ok']).sort()).toEqual([
      [1, 'ok'],
      [2, 'ok'],
    ]);
    expect(limiter.load(a.id)).toEqual({ running: 0, queued: 0 });
  });
});

/** An object body with `n` text fields. */
const wide = (n: number) => ({ fields: Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'text' }])) });

describe("a tenant's large bodies, one at a time", () => {
  it("a body of 1 MiB or more waits for the tenant's one turn for large bodies, holding no other turn; small requests run meanwhile", async () => {
    const a = await tenantWithPackage('heavy');
    const end = await heavyLimiter.acquire(a.id); // as a running large body would
    const fields = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`field_${i}`, { type: 'text' }]));
    const body = JSON.stringify({ fields });
    expect(Buffer.byteLength(body)).toBeGreaterThanOrEqual(HEAVY_BODY_BYTES);
    const big = a.at('app/drafts/object/wide', { method: 'PUT', body, headers: { 'content-type': 'application/json' } });
    await until(() => heavyLimiter.load(a.id).queued === 1, 'the large body waits');
    // It holds none of the tenant's ordinary turns: a small request of the same tenant runs.
    expect(limiter.load(a.id).running).toBe(0);
    const small = await a.at('app/drafts/object/note');
    expect(small.status).toBe(200);
    end();
    const r = await big;
    expect(r.status).toBe(200);
    expect(heavyLimiter.load(a.id)).toEqual({ running: 0, queued: 0 });
  });
});

describe("the CLI's input bounds on staged drafts", () => {
  it('over HTTP: an object past the field bound is a 413 naming it, the bound and the figure; nothing is written', async () => {
    const a = await t.tenant('bounds_http');
    const over = INPUT_LIMITS.fields + 1;
    const r = await a.request('app/drafts/object/huge', { method: 'PUT', json: wide(over) });
    expect(r.status).toBe(413);
    const body = (await r.json()) as { error: string; message: string; problems: Array<{ path: string }> };
    expect(body.error).toBe('payload_too_large');
    expect(body.message).toBe(
      `object "huge" declares ${over.toLocaleString('en-US')} fields; a draft holds at most ${INPUT_LIMITS.fields.toLocaleString('en-US')} (the bound bvl reads from one input). Split the object, or the app into packages; nothing was staged`,
    );
    expect(body.problems.map((p) => p.path)).toEqual(['body.fields']);
    // Nothing was written: the package does not even exist.
    expect((await a.request('app/drafts')).status).toBe(404);
  });

  it("over HTTP: a draft that takes the package's drafts past the bound is refused; the drafts before it stay", async () => {
    const a = await t.tenant('bounds_package');
    const first = Math.floor(INPUT_LIMITS.fields * 0.6);
    expect((await a.request('app/drafts/object/a', { method: 'PUT', json: wide(first) })).status).toBe(200);
    const second = INPUT_LIMITS.fields - first + 1;
    const r = await a.request('app/drafts', { method: 'POST', json: { artifacts: [{ type: 'object', name: 'b', body: wide(second) }] } });
    expect(r.status).toBe(413);
    expect(((await r.json()) as { message: string }).message).toBe(
      `staging object "b" would bring package "app"'s drafts to ${(first + second).toLocaleString('en-US')} fields (${first.toLocaleString('en-US')} staged before); a package's drafts hold at most ${INPUT_LIMITS.fields.toLocaleString('en-US')} (the bound bvl reads from one input). Publish or discard drafts first, or split the app into packages; nothing was staged`,
    );
    expect(((await (await a.request('app/drafts')).json()) as { drafts: Array<{ name: string }> }).drafts.map((d) => d.name)).toEqual(['a']);
  });

  it('over MCP: the same refusal as a tool error, nothing written', async () => {
    const a = await t.tenant('bounds_mcp');
    const { body } = await mcpBatch(a.token, [call(1, 'stage_draft', { package: 'app', type: 'object', name: 'huge', body: wide(INPUT_LIMITS.fields + 1) })]);
    expect(body[0]?.result?.isError).toBe(true);
    expect(body[0]?.result?.content?.[0]?.text).toMatch(/^payload_too_large: object "huge" declares 100,001 fields; a draft holds at most 100,000 /);
    expect((await a.request('app/drafts')).status).toBe(404);
  });
});
