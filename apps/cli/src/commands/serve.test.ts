// `bvl serve --port 0` as a user runs it: the built binary on embedded PGlite in a fresh folder. It
// prints the URL, a token line and curl lines that open a session and verify the example's broken build in it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/bvl.js');
let cwd: string;
let child: ChildProcess;
const lines: string[] = [];

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-serve-'));
  // A fresh folder: the data goes to <cwd>/.bvl/data; the example is found beside the running code.
  child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'ignore'] });
  const rl = createInterface({ input: child.stdout! });
  await new Promise<void>((done, fail) => {
    rl.on('line', (l) => {
      lines.push(l);
      if (l.startsWith('openapi:')) done();
    });
    child.once('exit', (code) => fail(new Error(`bvl serve exited with ${code}`)));
  });
}, 120_000);
afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGTERM');
  await rm(cwd, { recursive: true, force: true });
});

describe('bvl serve', () => {
  it('prints the URL, the token and the curl lines that open a session and verify the broken build in it', async () => {
    const url = /serving (http:\/\/127\.0\.0\.1:\d+) /.exec(lines[0]!)?.[1];
    expect(url).toBeDefined();
    const token = lines.find((l) => l.startsWith('token: '))?.slice('token: '.length);
    expect(token).toMatch(/^bvl_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const pkg = `${url}/v1/tenants/demo/packages/expense`;
    const auth = `-H "Authorization: Bearer ${token}" -H "Content-Type: application/json"`;
    expect(lines.find((l) => l.startsWith('session: '))).toBe(`session: curl -s -X POST ${auth} -d '{"goal":"Track expenses"}' ${pkg}/sessions`);
    expect(lines.find((l) => l.startsWith('verify: '))).toBe(`verify: curl -s -X POST ${auth} -d '{"session":"<id>"}' ${pkg}/verify`);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    // bvl serve requires a session: a verify without one is a 428 naming how to open one.
    const bare = await fetch(`${pkg}/verify`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    expect(bare.status).toBe(428);
    const session = (await (await fetch(`${pkg}/sessions`, { method: 'POST', headers, body: '{"goal":"Track expenses"}' })).json()) as { id: string };
    const r = await fetch(`${pkg}/verify`, { method: 'POST', headers, body: JSON.stringify({ session: session.id }) });
    const body = (await r.json()) as { ok: boolean; fixes: unknown[]; issues: Array<{ code: string; severity: string }> };
    expect(body.ok).toBe(false);
    // In a session the safe fixer repairs the measure typo first; the dangling dataset is left to the agent.
    expect(body.fixes.length).toBeGreaterThan(0);
    expect(body.issues.filter((i) => i.severity === 'error').map((i) => i.code)).toEqual(['dangling_dataset']);
  });

  it('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
