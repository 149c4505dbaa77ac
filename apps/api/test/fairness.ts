// The fairness check (opt-in: `npm run test:fairness -w @bvl/api`; timing on a shared machine is
// too noisy for the default suite). A real server in its own process; in this one, tenant `calm`
// verifies a small package in a loop — idle first, then while tenant `hog` hammers: clients that
// stage at-bound drafts (99,999 fields), verify them, stage over-bound drafts (413), and stage and
// publish a small package over and over. Prints calm's verify p50/p90 idle and loaded (and the
// ratio), /healthz's, and the hog's answers by status. Exits 1 when calm's loaded p50 is over
// 2× its idle p50 (BVL_FAIRNESS_MAX_RATIO changes the bound). Embedded PGlite, or PostgreSQL
// when DATABASE_URL is set. BVL_FAIRNESS_SECONDS (default 30), BVL_FAIRNESS_HOG_CLIENTS
// (default 24: more than the tenant's 2 running + 16 queued, so some are refused) and
// BVL_FAIRNESS_FIELDS (the big drafts' fields; 0 = publishes only) tune the load; BVL_FAIRNESS_PROFILE=<dir>
// has the server write a CPU profile there.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { INPUT_LIMITS } from '@bvl/metadata';
import { dropTenant, openPlatform } from '@bvl/platform';
import { issueToken, startServer } from '../src/main.ts';

const SECONDS = Number(process.env.BVL_FAIRNESS_SECONDS ?? 30);
const HOG_CLIENTS = Number(process.env.BVL_FAIRNESS_HOG_CLIENTS ?? 24);
const MAX_RATIO = Number(process.env.BVL_FAIRNESS_MAX_RATIO ?? 2);
/** Fields of the hog's big drafts (default at the bound); 0: no big or over-bound drafts, publishes only. */
const FIELDS = Number(process.env.BVL_FAIRNESS_FIELDS ?? INPUT_LIMITS.fields - 1);
const TENANTS = { hog: 'fair_hog', calm: 'fair_calm' } as const;

const pct = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const ms = (x: number) => `${x.toFixed(0)} ms`;

/** --serve: the server, printing its URL and the two tenants' tokens as one JSON line. */
async function serveMode() {
  // Sessions optional (bvl serve requires them by default): this measures sharing, not the policy.
  const env = { BVL_POLICY: '{"requireSession":false}', ...process.env };
  const cwd = process.cwd();
  const tokens: Record<string, string> = {};
  for (const t of Object.values(TENANTS)) tokens[t] = (await issueToken(env, cwd, t, 'fairness')).token;
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    demo: false,
    env,
    cwd,
    version: 'fairness',
    logTo: new Writable({ write: (_c, _e, done) => done() }),
  });
  process.stdout.write(`${JSON.stringify({ url: server.url, tokens })}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

async function startServerProcess(cwd: string): Promise<{ child: ChildProcess; url: string; tokens: Record<string, string> }> {
  // BVL_FAIRNESS_PROFILE=<dir>: the server writes a CPU profile there when it stops (where its thread's time went).
  const profile = process.env.BVL_FAIRNESS_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BVL_FAIRNESS_PROFILE] : [];
  const child = spawn(process.execPath, [...profile, '--import', import.meta.resolve('tsx'), new URL(import.meta.url).pathname, '--serve'], {
    cwd,
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout! }).once('line', done);
    child.once('exit', (code) => fail(new Error(`the server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { url: string; tokens: Record<string, string> }) };
}

/** An object body with `n` text fields, as JSON text (made once: the clients spend no CPU on it). */
const wide = (n: number) => JSON.stringify({ fields: Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'text' }])) });

/** The calm tenant's package: a small app (3 objects, a view each). */
const CALM = {
  artifacts: ['account', 'contact', 'deal'].flatMap((o) => [
    {
      type: 'object',
      name: o,
      body: { label: o, fields: { name: { type: 'text', required: true }, amount: { type: 'number' }, due: { type: 'date' }, note: { type: 'textarea' } } },
    },
    { type: 'view', name: o, body: { list: { type: 'grid', data: { provider: 'object', object: o }, columns: ['name', 'amount', 'due'] } } },
  ]),
};

async function main() {
  const cwd = await mkdtemp(join(tmpdir(), 'bvl-fairness-'));
  const log = (s: string) => process.stdout.write(`${s}\n`);
  if (process.env.DATABASE_URL) {
    const p = await openPlatform({ databaseUrl: process.env.DATABASE_URL });
    for (const t of Object.values(TENANTS)) await dropTenant(p, t);
    await p.close();
  }
  const server = await startServerProcess(cwd);
  const engine = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';
  log(
    `fairness (${engine}; server in its own process; ${cpus().length} cores, shared; ${HOG_CLIENTS} hog clients for ${SECONDS} s; big drafts of ${FIELDS} fields; verify workers ${process.env.BVL_VERIFY_WORKERS ?? 'default'})`,
  );
  const send = async (tenant: string, path: string, init: { method?: string; body?: string } = {}) => {
    const r = await fetch(`${server.url}/v1/tenants/${tenant}/packages/${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${server.tokens[tenant]}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      ...(init.body ? { body: init.body } : {}),
    });
    await r.arrayBuffer();
    return r.status;
  };
  try {
    const calm = TENANTS.calm;
    const hog = TENANTS.hog;
    if ((await send(calm, 'app/drafts', { method: 'POST', body: JSON.stringify(CALM) })) !== 200) throw new Error('cannot stage the calm app');
    const verifyCalm = async () => {
      const t0 = performance.now();
      const status = await send(calm, 'app/verify', { method: 'POST' });
      if (status !== 200) throw new Error(`calm verify answered ${status}`);
      return performance.now() - t0;
    };
    const healthz = async () => {
      const t0 = performance.now();
      await (await fetch(`${server.url}/healthz`)).arrayBuffer();
      return performance.now() - t0;
    };
    /** Calm's loop: a verify, then /healthz, for `seconds` (or `count` rounds). */
    const sample = async (until: () => boolean) => {
      const verify: number[] = [];
      const health: number[] = [];
      while (!until()) {
        verify.push(await verifyCalm());
        health.push(await healthz());
      }
      return { verify: verify.sort((a, b) => a - b), health: health.sort((a, b) => a - b) };
    };
    for (let i = 0; i < 5; i++) await verifyCalm(); // warm-up
    let n = 0;
    const idle = await sample(() => n++ >= 40);

    // The hog's packages: at-bound drafts in big_<c>, publishes of `pub`.
    const atBound = wide(FIELDS);
    const overBound = wide(INPUT_LIMITS.fields + 1);
    const counts = new Map<number, number>();
    const count = (s: number) => counts.set(s, (counts.get(s) ?? 0) + 1);
    const end = performance.now() + SECONDS * 1000;
    let stop = false;
    const hogs = Array.from({ length: HOG_CLIENTS }, async (_, c) => {
      for (let i = c; !stop; i++) {
        const step = FIELDS > 0 ? i % 5 : 3 + (i % 2);
        const status = await (step === 0
          ? // Each stage differs (a field renamed): a server that caches answers by content must still do the work.
            send(hog, `big_${c}/drafts/object/huge`, { method: 'PUT', body: atBound.replace('"f0"', `"g${i}"`) })
          : step === 1
            ? send(hog, `big_${c}/verify`, { method: 'POST' })
            : step === 2
              ? send(hog, `big_${c}/drafts/object/huger`, { method: 'PUT', body: overBound })
              : step === 3
                ? send(hog, 'pub/drafts/object/ticket', { method: 'PUT', body: JSON.stringify({ fields: { [`f${i}`]: { type: 'text' } } }) })
                : send(hog, 'pub/publish', { method: 'POST' })
        ).catch(() => -1);
        count(status);
        // A refused client backs off briefly (as Retry-After asks, shortened).
        if (status === 429) await new Promise((r) => setTimeout(r, 200));
      }
    });
    // Let the hog's load build up before measuring.
    await new Promise((r) => setTimeout(r, 3000));
    const loaded = await sample(() => performance.now() > end);
    stop = true;
    await Promise.all(hogs);

    const line = (what: string, a: readonly number[], b: readonly number[]) =>
      log(
        `${what}: idle p50 ${ms(pct(a, 50))} p90 ${ms(pct(a, 90))} (n=${a.length}); loaded p50 ${ms(pct(b, 50))} p90 ${ms(pct(b, 90))} (n=${b.length}); ratio p50 ${(pct(b, 50) / pct(a, 50)).toFixed(2)}× p90 ${(pct(b, 90) / pct(a, 90)).toFixed(2)}×`,
      );
    line('calm verify', idle.verify, loaded.verify);
    line('/healthz', idle.health, loaded.health);
    log(
      `hog answers: ${[...counts.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([s, k]) => `${s === -1 ? 'network error' : s} ×${k}`)
        .join(', ')}`,
    );
    const ratio = pct(loaded.verify, 50) / pct(idle.verify, 50);
    if (!(ratio <= MAX_RATIO)) {
      log(`FAIL: calm's verify p50 under load is ${ratio.toFixed(2)}× its idle p50 (bound ${MAX_RATIO}×)`);
      process.exitCode = 1;
    }
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    if (process.env.DATABASE_URL) {
      const p = await openPlatform({ databaseUrl: process.env.DATABASE_URL });
      for (const t of Object.values(TENANTS)) await dropTenant(p, t);
      await p.close();
    }
    await rm(cwd, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serveMode();
else await main();
