// A database that goes away, stops answering, or kills our connections: every request answers 503
// within its bound (never a hang), and the first request once it is back succeeds. Runs on
// PostgreSQL (the postgres project), through a proxy the test can stop.
import { dropTenant, openPlatform, type Platform } from '@bvl/platform';
import { ENGINE, uniqueTenant } from '@bvl/platform/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/create-app.ts';
import { createToken } from '../src/run-tokens.ts';
import { TcpProxy } from './tcp-proxy.ts';
import { recordingLogger } from './test-app.ts';

const REQUEST_MS = 2_000;

describe.runIf(ENGINE === 'postgres')('a database that goes away', () => {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://localhost');
  const proxy = new TcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  let platform: Platform;
  let app: ReturnType<typeof createApp>;
  let token: string;
  const tenant = uniqueTenant('outage');
  const logger = recordingLogger();

  beforeAll(async () => {
    const port = await proxy.start();
    const via = new URL(url);
    via.hostname = '127.0.0.1';
    via.port = String(port);
    platform = await openPlatform({ databaseUrl: via.toString(), maxConnections: 4 });
    app = createApp({ platform, logger, version: 'test', limits: { requestMs: REQUEST_MS, healthzMs: 1_000 } });
    token = (await createToken(platform, { tenant })).token;
  });
  afterAll(async () => {
    await proxy.start().catch(() => {});
    proxy.resume();
    await dropTenant(platform, tenant).catch(() => {});
    await platform.close();
    await proxy.stop();
  });

  /** A request and how long it took to answer. */
  async function timed(path: string, init: RequestInit = {}) {
    const started = performance.now();
    const res = await app.request(path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: performance.now() - started };
  }
  const drafts = `/v1/tenants/${tenant}/packages/p/drafts`;
  const stage = () => timed(`${drafts}/object/exp_a`, { method: 'PUT', body: JSON.stringify({ name: 'exp_a', fields: { title: { type: 'text' } } }) });

  it('stopped: 503 (and /healthz says down) within the bound; back: the next request succeeds', async () => {
    expect((await stage()).status).toBe(200);
    await proxy.stop();
    for (const r of [await timed(drafts), await stage(), await timed(`/v1/tenants/${tenant}/packages/p/verify`, { method: 'POST' })]) {
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ error: 'database_unavailable' });
      expect(r.ms).toBeLessThan(REQUEST_MS + 1_000);
    }
    const health = await timed('/healthz');
    expect([health.status, health.body.database]).toEqual([503, 'down']);
    await proxy.start();
    const back = await timed(drafts);
    expect(back.status).toBe(200);
    expect((back.body.drafts as unknown[]).length).toBe(1);
    expect((await timed('/healthz')).status).toBe(200);
  });

  it('connections killed by the server (pg_terminate_backend): the pool drops them and requests go on', async () => {
    expect((await timed(drafts)).status).toBe(200);
    const control = new pg.Client({ connectionString: url.toString() });
    await control.connect();
    try {
      const killed = await control.query('select pid from pg_stat_activity where client_port = any($1::int[]) and pg_terminate_backend(pid)', [
        proxy.upstreamPorts(),
      ]);
      expect(killed.rows.length).toBeGreaterThan(0);
      // A request racing the kill may see it (503); none hangs.
      const racing = await timed(drafts);
      expect([200, 503]).toContain(racing.status);
      expect(racing.ms).toBeLessThan(REQUEST_MS + 1_000);
      // Once the killed backends are gone, the next request succeeds: the pool has dropped them.
      const pids = killed.rows.map((r) => r.pid as number);
      for (let i = 0; i < 50; i++) {
        const left = await control.query('select count(*)::int as n from pg_stat_activity where pid = any($1::int[])', [pids]);
        if (left.rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await control.end();
    }
    // The killed backends are gone: the very next request answers 200. The pool drops a connection
    // it knows is dead on borrow, and a read whose pooled connection turns out to have been killed
    // runs once more on a fresh one (open-platform's retryFirstReadOnce), so no user sees that kill.
    for (let i = 0; i < 3; i++) {
      const r = await timed(drafts);
      expect(r.status, `request ${i + 1} after the kill`).toBe(200);
      expect(r.ms).toBeLessThan(REQUEST_MS + 1_000);
    }
  });

  it('not answering (every byte held): 503 at the deadline, not a hang; answering again: the next request succeeds', async () => {
    expect((await timed(drafts)).status).toBe(200);
    proxy.stall();
    const stuck = await timed(drafts);
    expect(stuck.status).toBe(503);
    expect(stuck.body).toMatchObject({ error: 'timeout', message: expect.stringMatching(/did not finish within 2000 ms/) });
    expect(stuck.ms).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(stuck.ms).toBeLessThan(REQUEST_MS + 1_000);
    proxy.resume();
    const back = await timed(drafts);
    expect(back.status).toBe(200);
  });

  it('logged each failure as one request line with its outcome', () => {
    const outcomes = logger
      .entries()
      .filter((e) => e.msg === 'request' && e.status === 503)
      .map((e) => e.outcome);
    expect(outcomes.length).toBeGreaterThanOrEqual(5);
    expect(new Set(outcomes)).toEqual(new Set(['database_unavailable', 'timeout']));
  });
});
