// Honest outcomes of a publish over real HTTP: one that outlives its request's bound is cancelled
// before it commits (503 timeout, nothing published, ever) or, once committing, answered 202
// `accepted` with a publishId that GET …/publishes/{id} (and get_publish over MCP) follows to its
// end. A publish whose process was killed while seeding reads as interrupted, not running for ever.
import { type ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { dropTenant, openPlatform, type Platform, type PlatformContext, tenantSchema, withPackageLock } from '@bvl/platform';
import { ENGINE, uniqueTenant } from '@bvl/platform/testing';
import { serve } from '@hono/node-server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/create-app.ts';
import { createToken } from '../src/run-tokens.ts';
import { openTestApp } from './test-app.ts';

const PUBLISH_MS = 1_500;

const object = (name = 'o_item') => ({ name, fields: { title: { type: 'text' }, n: { type: 'number' } } });
const OBJECT = object();
const seed = (records: number, name = 'o_item') => ({
  object: name,
  externalId: 'title',
  mode: 'upsert',
  records: Array.from({ length: records }, (_, i) => ({ title: `t${i}`, n: i })),
});

/** The app on a real node HTTP server on 127.0.0.1. */
async function listen(app: ReturnType<typeof createApp>) {
  const server = await new Promise<ReturnType<typeof serve>>((done) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => done(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

/** A request helper for one tenant against a base URL. */
const client =
  (url: string, tenant: string, token: string) =>
  async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(path.startsWith('/') ? `${url}${path}` : `${url}/v1/tenants/${tenant}/packages/${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

/**
 * A publish that sets up a test (not what it is about) has published: 200 published within its
 * bound, or — a busy machine, past the bound while committing — 202 accepted, then its status route
 * says it succeeded.
 */
async function expectPublished(call: ReturnType<typeof client>, r: Awaited<ReturnType<ReturnType<typeof client>>>): Promise<void> {
  expect([
    [200, 'published'],
    [202, 'accepted'],
  ]).toContainEqual([r.status, r.body.outcome]);
  if (r.status !== 202) return;
  const done = await until(
    () => call(r.body.poll),
    (s) => s.body.status !== 'running',
    60_000,
  );
  expect(done.body).toMatchObject({ status: 'succeeded', result: { outcome: 'published', ok: true } });
}

/** Polls until `done` holds of the answer (or throws after `ms`). */
async function until<T>(get: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a publish past its request bound, before it commits', () => {
  let t: Awaited<ReturnType<typeof openTestApp>>;
  let http: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    t = await openTestApp({ publishMs: PUBLISH_MS, requestMs: 10_000 });
    http = await listen(t.app);
  });
  afterAll(async () => {
    await http.close();
    await t.close();
  });

  it('is cancelled: 503 timeout with Retry-After, and it never commits later (a held package lock keeps it waiting)', async () => {
    const { id, token } = await t.tenant('cancel');
    const req = client(http.url, id, token);
    expect((await req('p/drafts/object/o_item', { method: 'PUT', json: OBJECT })).status).toBe(200);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const holder = withPackageLock(t.platform as PlatformContext, { tenant: id, package: 'p' }, async () => {
      locked();
      await held;
    });
    await isLocked;
    const started = Date.now();
    let r: Awaited<ReturnType<typeof req>>;
    try {
      r = await req('p/publish', { method: 'POST', json: {} });
    } finally {
      release();
      await holder;
    }
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ error: 'timeout' });
    // PostgreSQL: the publish waits for the package and is cancelled at its bound. PGlite: its one
    // connection is held, so the request waits before the publish starts and the request's
    // backstop (5 s later) cancels it.
    expect(r.body.message).toMatch(ENGINE === 'postgres' ? /cancelled before it committed: nothing was published/ : /was cancelled/);
    expect(r.headers.get('retry-after')).toBe('5');
    expect(Date.now() - started).toBeLessThan(PUBLISH_MS + (ENGINE === 'postgres' ? 3_000 : 8_000));
    // Long after the lock is free, the draft is still a draft: the publish did not commit.
    await new Promise((r) => setTimeout(r, 500));
    const drafts = await req('p/drafts');
    expect(drafts.body.drafts.map((d: { name: string }) => d.name)).toEqual(['o_item']);
    const log = await t.platform.db.selectFrom('bvl.publish_log').select('id').where('tenant_id', '=', id).execute();
    expect(log).toEqual([]);
    // And the next publish goes through.
    // (Within its 1.5 s bound it answers 200 published; a busy machine may take longer, and a publish
    // already committing answers 202 accepted: then its status route says how it ended.)
    const again = await req('p/publish', { method: 'POST', json: {} });
    expect([
      [200, 'published'],
      [202, 'accepted'],
    ]).toContainEqual([again.status, again.body.outcome]);
    expect(typeof again.body.publishId).toBe('number');
    let status = await req(`p/publishes/${again.body.publishId}`);
    for (let i = 0; i < 300 && status.body.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = await req(`p/publishes/${again.body.publishId}`);
    }
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ status: 'succeeded', publishId: again.body.publishId, stage: 'done', result: { outcome: 'published', ok: true } });
    expect((await req('p/publishes/999999')).status).toBe(404);
    expect((await req('p/publishes/abc')).status).toBe(400);
  });
});

describe('allowDataChange over HTTP and MCP', () => {
  let t: Awaited<ReturnType<typeof openTestApp>>;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const deal = (options: string[]) => ({ name: 'o_deal', fields: { title: { type: 'text' }, stage: { type: 'select', options } } });

  it('a republish that would clear rows is refused with a fix naming the parameter of each surface, and goes through with it', async () => {
    const { request } = await t.tenant('allow');
    const mcp = async (args: object) => {
      const res = await request('/mcp', {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream' },
        json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'publish', arguments: { package: 'p', ...args } } },
      });
      return ((await res.json()) as { result: { structuredContent: any } }).result.structuredContent;
    };
    expect((await request('p/drafts/object/o_deal', { method: 'PUT', json: deal(['open', 'won', 'lost']) })).status).toBe(200);
    const seedDraft = { object: 'o_deal', externalId: 'title', mode: 'upsert', records: [{ title: 'a', stage: 'lost' }] };
    expect((await request('p/drafts/seed/o_deal', { method: 'PUT', json: seedDraft })).status).toBe(200);
    expect(((await (await request('p/publish', { method: 'POST', json: {} })).json()) as { outcome: string }).outcome).toBe('published');

    // The seed keeps only rows the new options allow; row "a" stays in the table with "lost".
    const seedWon = { ...seedDraft, records: [{ title: 'b', stage: 'won' }] };
    expect((await request('p/drafts/seed/o_deal', { method: 'PUT', json: seedWon })).status).toBe(200);
    expect((await request('p/drafts/object/o_deal', { method: 'PUT', json: deal(['open', 'won']) })).status).toBe(200);
    const refused = await request('p/publish', { method: 'POST', json: {} });
    expect(refused.status).toBe(409);
    const issue = ((await refused.json()) as { issues: Array<{ code: string; fix: string }> }).issues.find((i) => i.code === 'data_loss_on_republish');
    expect(issue?.fix).toContain('--allow-data-change');
    expect(issue?.fix).toContain('"allowDataChange": true');
    expect(issue?.fix).toMatch(/HTTP publish/);
    expect(issue?.fix).toMatch(/MCP publish tool/);
    // Refused over MCP too; allowed there with the argument.
    expect((await mcp({})).outcome).toBe('refused');
    const allowed = await mcp({ allowDataChange: true, detail: 'full' });
    expect(allowed.outcome).toBe('published');
    expect(allowed.issues.map((i: { code: string }) => i.code)).toContain('data_changed_on_republish');

    // And over HTTP: the next removal (row "b" holds "won") goes through with the body's allowDataChange.
    expect((await request('p/drafts/seed/o_deal', { method: 'PUT', json: { ...seedDraft, records: [{ title: 'c', stage: 'open' }] } })).status).toBe(200);
    expect((await request('p/drafts/object/o_deal', { method: 'PUT', json: deal(['open']) })).status).toBe(200);
    expect((await request('p/publish', { method: 'POST', json: {} })).status).toBe(409);
    expect((await request('p/publish', { method: 'POST', json: { allowDataChange: 'yes' } })).status).toBe(400);
    const http = await request('p/publish', { method: 'POST', json: { allowDataChange: true } });
    expect(http.status).toBe(200);
    expect(((await http.json()) as { issues: Array<{ code: string }> }).issues.map((i) => i.code)).toContain('data_changed_on_republish');
  });
});

describe.runIf(ENGINE === 'postgres')('a publish past its request bound while seeding (PostgreSQL)', () => {
  const url = process.env.DATABASE_URL!;
  let platform: Platform;
  let http: Awaited<ReturnType<typeof listen>>;
  const tenant = uniqueTenant('accepted');
  let token: string;
  let req: ReturnType<typeof client>;
  let control: pg.Client;

  beforeAll(async () => {
    platform = await openPlatform({ databaseUrl: url });
    http = await listen(createApp({ platform, logger: { info() {}, error() {} }, version: 'test', limits: { publishMs: PUBLISH_MS } }));
    token = (await createToken(platform, { tenant })).token;
    req = client(http.url, tenant, token);
    control = new pg.Client({ connectionString: url });
    await control.connect();
  });
  afterAll(async () => {
    await control.query('rollback').catch(() => {});
    await control.end();
    await http.close();
    await dropTenant(platform, tenant).catch(() => {});
    await platform.close();
  });

  /** Publishes p with its seed's rows blocked by a table lock another session holds; answers the publish's response. */
  async function blockedPublish(pkg: string, records: number) {
    expect((await req(`${pkg}/drafts/object/o_item`, { method: 'PUT', json: OBJECT })).status).toBe(200);
    await expectPublished(req, await req(`${pkg}/publish`, { method: 'POST', json: {} }));
    expect((await req(`${pkg}/drafts/seed/o_item`, { method: 'PUT', json: seed(records) })).status).toBe(200);
    await control.query('begin');
    await control.query(`lock table ${tenantSchema(tenant)}.o_item in share mode`);
    return req(`${pkg}/publish`, { method: 'POST', json: {} });
  }

  it('answers 202 accepted with publishId and poll; the status reads running, then succeeded once the seeds land', async () => {
    const r = await blockedPublish('p', 3);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: 'accepted', outcome: 'accepted', published: true });
    const id = r.body.publishId as number;
    expect(r.body.poll).toBe(`/v1/tenants/${tenant}/packages/p/publishes/${id}`);
    expect(r.headers.get('location')).toBe(r.body.poll);
    const running = await req(r.body.poll);
    expect(running.body).toMatchObject({ status: 'running', publishId: id, stage: 'seeding' });

    // A second publish meanwhile waits for the package, past its own bound: cancelled, nothing done.
    expect((await req('p/drafts/object/o_other', { method: 'PUT', json: { name: 'o_other', fields: { t: { type: 'text' } } } })).status).toBe(200);
    const second = await req('p/publish', { method: 'POST', json: {} });
    expect([second.status, second.body.error]).toEqual([503, 'timeout']);

    await control.query('commit');
    const done = await until(
      () => req(r.body.poll),
      (s) => s.body.status !== 'running',
    );
    expect(done.body).toMatchObject({ status: 'succeeded', stage: 'done', result: { outcome: 'published', ok: true, publishId: id } });
    expect(done.body.result.seedApplied).toMatchObject({ success: true, inserted: 3 });
    const rows = await control.query(`select count(*)::int as n from ${tenantSchema(tenant)}.o_item`);
    expect(rows.rows[0].n).toBe(3);
    // The second publish's draft is still a draft for the next round.
    expect((await req('p/drafts')).body.drafts.map((d: { name: string }) => d.name)).toEqual(['o_other']);
  });

  /** Waits for the publish of tenant/pkg to wait on a lock; terminates its backend; answers the pid. */
  async function killWaitingPublish(pkg: string): Promise<number> {
    for (let i = 0; i < 200; i++) {
      // Two steps: the one backend found, then it alone (never a condition the planner could reorder).
      // The control session is in a transaction: pg_stat_activity is read fresh each time.
      await control.query('select pg_stat_clear_snapshot()');
      const r = await control.query("select pid from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'", [
        `bvl publish ${tenant}/${pkg}`,
      ]);
      if (r.rows.length === 1) {
        await control.query('select pg_terminate_backend($1::int)', [r.rows[0].pid]);
        return r.rows[0].pid as number;
      }
      await new Promise((done) => setTimeout(done, 50));
    }
    throw new Error('the publish never waited on the lock');
  }

  it('its connection killed before the commit: 503 database_unavailable with Retry-After, nothing half-written', async () => {
    const slow = await listen(createApp({ platform, logger: { info() {}, error() {} }, version: 'test', limits: { publishMs: 30_000 } }));
    try {
      const viaSlow = client(slow.url, tenant, token);
      expect((await viaSlow('c/drafts/object/o_c', { method: 'PUT', json: object('o_c') })).status).toBe(200);
      expect((await viaSlow('c/publish', { method: 'POST', json: {} })).body.outcome).toBe('published');
      const wider = { name: 'o_c', fields: { ...object('o_c').fields, extra: { type: 'text' } } };
      expect((await viaSlow('c/drafts/object/o_c', { method: 'PUT', json: wider })).status).toBe(200);
      // A reader holds the table: the publish's ALTER TABLE waits, and its backend is killed there.
      await control.query('begin');
      await control.query(`lock table ${tenantSchema(tenant)}.o_c in access share mode`);
      const publishing = viaSlow('c/publish', { method: 'POST', json: {} });
      await killWaitingPublish('c');
      const r = await publishing;
      await control.query('commit');
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ error: 'database_unavailable' });
      expect(r.body.message).toMatch(/rolled back/);
      expect(r.headers.get('retry-after')).toBe('5');
      // Nothing half-written: no column, the draft is still a draft; the next publish goes through.
      const cols = await control.query('select column_name from information_schema.columns where table_schema = $1 and table_name = $2', [
        tenantSchema(tenant),
        'o_c',
      ]);
      expect(cols.rows.map((c) => c.column_name)).not.toContain('extra');
      expect((await viaSlow('c/drafts')).body.drafts.map((d: { name: string }) => d.name)).toEqual(['o_c']);
      expect((await viaSlow('c/publish', { method: 'POST', json: {} })).body.outcome).toBe('published');

      // After the commit (killed while seeding): the committed result, 200, with publish_interrupted.
      expect((await viaSlow('c/drafts/seed/o_c', { method: 'PUT', json: seed(3, 'o_c') })).status).toBe(200);
      await control.query('begin');
      await control.query(`lock table ${tenantSchema(tenant)}.o_c in share mode`);
      const seeding = viaSlow('c/publish', { method: 'POST', json: {} });
      await killWaitingPublish('c');
      const after = await seeding;
      await control.query('commit');
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({ outcome: 'published', published: true, ok: false });
      expect(after.body.issues.map((i: { code: string }) => i.code)).toContain('publish_interrupted');
    } finally {
      await control.query('rollback').catch(() => {});
      await slow.close();
    }
  });

  it('its session cancelled while an accepted publish seeds: the publish still ends succeeded (it had committed), the session stays cancelled', async () => {
    expect((await req('s/drafts/object/o_s', { method: 'PUT', json: object('o_s') })).status).toBe(200);
    expect((await req('s/publish', { method: 'POST', json: {} })).body.outcome).toBe('published');
    const session = (await req('s/sessions', { method: 'POST', json: { goal: 'seed it' } })).body as { id: string };
    expect((await req('s/drafts/seed/o_s', { method: 'PUT', json: seed(2, 'o_s') })).status).toBe(200);
    await control.query('begin');
    await control.query(`lock table ${tenantSchema(tenant)}.o_s in share mode`);
    const r = await req('s/publish', { method: 'POST', json: { session: session.id } });
    expect(r.status).toBe(202);
    const cancelled = await req(`s/sessions/${session.id}/cancel`, { method: 'POST' });
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'stopped']);
    await control.query('commit');
    const done = await until(
      () => req(r.body.poll),
      (x) => x.body.status !== 'running',
    );
    expect(done.body).toMatchObject({ status: 'succeeded', result: { outcome: 'published' } });
    expect(done.body.result.seedApplied).toMatchObject({ inserted: 2 });
    const after = await req(`s/sessions/${session.id}`);
    expect(after.body).toMatchObject({ status: 'stopped', stopReason: 'cancelled' });
  });

  it('over MCP: publish answers accepted and get_publish follows it (compact)', async () => {
    const mcp = async (name: string, args: object) => {
      const res = await fetch(`${http.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      });
      return ((await res.json()) as { result: { structuredContent: any; isError?: boolean } }).result;
    };
    expect((await req('m/drafts/object/o_m', { method: 'PUT', json: object('o_m') })).status).toBe(200);
    expect((await mcp('publish', { package: 'm' })).structuredContent.outcome).toBe('published');
    expect((await req('m/drafts/seed/o_m', { method: 'PUT', json: seed(2, 'o_m') })).status).toBe(200);
    await control.query('begin');
    await control.query(`lock table ${tenantSchema(tenant)}.o_m in share mode`);
    const accepted = await mcp('publish', { package: 'm' });
    expect(accepted.structuredContent).toMatchObject({ outcome: 'accepted', status: 'accepted' });
    const publishId = accepted.structuredContent.publishId as number;
    expect((await mcp('get_publish', { package: 'm', publishId })).structuredContent).toMatchObject({ status: 'running', stage: 'seeding' });
    await control.query('commit');
    const done = await until(
      () => mcp('get_publish', { package: 'm', publishId }),
      (s) => s.structuredContent.status !== 'running',
    );
    expect(done.structuredContent).toMatchObject({ status: 'succeeded', result: { outcome: 'published', ok: true } });
    expect((await mcp('get_publish', { package: 'x', publishId })).isError).toBe(true);
  });

  it('a server killed while seeding: the publish reads interrupted (not running for ever), and the next publish applies the seeds', async () => {
    const child: ChildProcess = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', join(import.meta.dirname, 'serve-child.ts')], {
      // Sessions optional (bvl serve requires them by default): this test is about the publish, not the policy.
      env: { ...process.env, BVL_TEST_PUBLISH_MS: String(PUBLISH_MS), BVL_POLICY: '{"requireSession":false}' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const line = await new Promise<string>((done, fail) => {
        createInterface({ input: child.stdout! }).once('line', done);
        child.once('exit', (code) => fail(new Error(`server exited with ${code}`)));
      });
      const viaChild = client((JSON.parse(line) as { url: string }).url, tenant, token);
      expect((await viaChild('k/drafts/object/o_k', { method: 'PUT', json: object('o_k') })).status).toBe(200);
      await expectPublished(viaChild, await viaChild('k/publish', { method: 'POST', json: {} }));
      expect((await viaChild('k/drafts/seed/o_k', { method: 'PUT', json: seed(4, 'o_k') })).status).toBe(200);
      await control.query('begin');
      await control.query(`lock table ${tenantSchema(tenant)}.o_k in share mode`);
      const r = await viaChild('k/publish', { method: 'POST', json: {} });
      expect(r.status).toBe(202);
      // Read through the other server (this process): the child's publish is running.
      expect((await req(r.body.poll)).body).toMatchObject({ status: 'running', stage: 'seeding' });
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGKILL');
      await exited;
      await control.query('commit');
      const after = await until(
        () => req(r.body.poll),
        (s) => s.body.status !== 'running',
      );
      expect(after.body).toMatchObject({ status: 'interrupted', stage: 'seeding' });
      expect(after.body.message).toMatch(/Publish again/);
      const next = await req('k/publish', { method: 'POST', json: {} });
      expect(next.body.outcome).toBe('published');
      expect(next.body.issues.find((i: { code: string }) => i.code === 'seeds_resumed')?.message).toContain(`publish #${r.body.publishId}`);
      expect(next.body.seedApplied).toMatchObject({ inserted: 4 });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await control.query('rollback').catch(() => {});
    }
  });
});

describe('a client that uploads its body slowly', () => {
  it('gets 408 request_timeout within the body bound (not 503 database_unavailable), and no database alert is logged', async () => {
    const t = await openTestApp({ bodyMs: 500, requestMs: 5_000 });
    const http = await listen(t.app);
    try {
      const { id, token } = await t.tenant('slow');
      const { connect } = await import('node:net');
      const port = Number(new URL(http.url).port);
      const started = Date.now();
      const answer = await new Promise<string>((done, fail) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `PUT /v1/tenants/${id}/packages/p/drafts/object/o_x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
          );
        });
        let data = '';
        socket.on('data', (b) => {
          data += b.toString();
          if (data.includes('"message"')) socket.destroy();
        });
        socket.on('close', () => done(data));
        socket.on('error', fail);
        setTimeout(() => socket.destroy(), 8_000);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(answer).toContain('"error":"request_timeout"');
      expect(Date.now() - started).toBeLessThan(4_000);
      const logged = t.logger.entries().filter((e) => e.msg === 'request');
      expect(logged.map((e) => [e.status, e.outcome])).toEqual([[408, 'request_timeout']]);
      expect(t.logger.entries().filter((e) => e.level === 'error')).toEqual([]);
      // The same PUT sent whole is fine.
      const ok = await fetch(`${http.url}/v1/tenants/${id}/packages/p/drafts/object/o_x`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'o_x', fields: { t: { type: 'text' } } }),
      });
      expect(ok.status).toBe(200);
    } finally {
      await http.close();
      await t.close();
    }
  });
});
