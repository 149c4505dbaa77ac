// `bvl serve --port 0` as a user runs it: the built binary on embedded PGlite in a fresh folder. It
// prints the URL, a token line and a curl line; the curl line verifies the example's broken build.
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
  it('prints the URL, the token and a curl line that verifies the broken build', async () => {
    const url = /serving (http:\/\/127\.0\.0\.1:\d+) /.exec(lines[0]!)?.[1];
    expect(url).toBeDefined();
    const token = lines.find((l) => l.startsWith('token: '))?.slice('token: '.length);
    expect(token).toMatch(/^bvl_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const curl = lines.find((l) => l.startsWith('curl '))!;
    expect(curl).toBe(`curl -s -X POST -H "Authorization: Bearer ${token}" ${url}/v1/tenants/demo/packages/expense/verify`);
    const r = await fetch(`${url}/v1/tenants/demo/packages/expense/verify`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    const body = (await r.json()) as { ok: boolean; issues: Array<{ code: string; severity: string }> };
    expect(body.ok).toBe(false);
    expect(body.issues.filter((i) => i.severity === 'error').map((i) => i.code)).toEqual(['unknown_measure', 'dangling_dataset']);
  });

  it('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
