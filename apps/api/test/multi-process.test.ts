// Several server processes on one PostgreSQL share the load: nothing lives in a process. A session
// created through one is continued through another; publishes through two processes serialize on
// the package lock in the database. Runs on PostgreSQL (the postgres project).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { dropTenant, openPlatform, type Platform } from '@bvl/platform';
import { ENGINE, uniqueTenant } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../src/run-tokens.ts';
import { EXAMPLE, stageFolder } from './test-app.ts';

describe.runIf(ENGINE === 'postgres')('two bvl servers on one PostgreSQL', () => {
  const children: ChildProcess[] = [];
  const urls: string[] = [];
  const tenant = uniqueTenant('multi');
  let platform: Platform;
  let token: string;

  beforeAll(async () => {
    platform = await openPlatform({ databaseUrl: process.env.DATABASE_URL });
    token = (await createToken(platform, { tenant })).token;
    for (let i = 0; i < 2; i++) {
      const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', join(import.meta.dirname, 'serve-child.ts')], {
        env: { ...process.env, BVL_POLICY: '{"requireSession":false}' },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      children.push(child);
      const line = await new Promise<string>((done, fail) => {
        createInterface({ input: child.stdout! }).once('line', done);
        child.once('exit', (code) => fail(new Error(`server exited with ${code}`)));
      });
      urls.push((JSON.parse(line) as { url: string }).url);
    }
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((done) => (c.exitCode !== null ? done(null) : c.once('exit', done)))));
    await dropTenant(platform, tenant);
    await platform.close();
  });

  const on =
    (server: number) =>
    (path: string, init: RequestInit & { json?: unknown } = {}) =>
      fetch(`${urls[server]}/v1/tenants/${tenant}/packages/${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
      });

  it('a session started on one server is continued on the other; one token works on both', async () => {
    expect(new Set(urls).size).toBe(2);
    await stageFolder(on(0), 'app', join(EXAMPLE, 'app'));
    await stageFolder(on(1), 'app', join(EXAMPLE, 'drafts'));
    const session = (await (await on(0)('app/sessions', { method: 'POST', json: { goal: 'expenses' } })).json()) as { id: string };
    const v = (await (await on(1)('app/verify', { method: 'POST', json: { session: session.id } })).json()) as {
      fixes: unknown[];
      session: { rounds: number };
    };
    expect(v.fixes).toHaveLength(2);
    expect(v.session.rounds).toBe(1);
    const rounds = (await (await on(0)(`app/sessions/${session.id}/rounds`)).json()) as { rounds: { fixes: unknown[] }[] };
    expect(rounds.rounds.map((r) => r.fixes.length)).toEqual([2]);
    const drafts = (await (await on(0)('app/drafts')).json()) as { drafts: unknown[] };
    expect(drafts.drafts.length).toBeGreaterThan(0);
  });

  it('publishes through both servers at once serialize: one publishes the drafts, the other finds nothing left', async () => {
    await on(0)('app/drafts', { method: 'DELETE' });
    await stageFolder(on(0), 'app', join(EXAMPLE, 'app'));
    const both = await Promise.all([on(0)('app/publish', { method: 'POST' }), on(1)('app/publish', { method: 'POST' })]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const outcomes = await Promise.all(both.map(async (r) => ((await r.json()) as { outcome: string }).outcome));
    expect(outcomes.sort()).toEqual(['nothing_to_publish', 'published']);
  });
});
