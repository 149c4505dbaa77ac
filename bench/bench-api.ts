// The API bench (loopback only): verify_build over HTTP against a real `bvl serve`-shaped server
// process, with 1 and 16 concurrent clients (requests/s, p50/p99), against the same verification
// in-process (verifyBuild on the same store, and the pure verify()); then a soak of 16 clients
// (60 s by default) with zero errors expected and the server's RSS sampled. Embedded PGlite, or
// PostgreSQL when DATABASE_URL is set. Prints figures; asserts nothing but the soak's error count
// (the machine is shared and noisy). Standalone: `npx tsx bench/bench-api.ts`.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { collectStack, readSource } from '@bvl/metadata';
import { dropTenant, openPlatform, type Platform, readOverlay, stageDrafts } from '@bvl/platform';
import { generateStack } from '@bvl/test-support';
import { verify } from '@bvl/verify';
import { publishBuild, verifyBuild } from '@bvl/verify-build';

const EXAMPLE = join(import.meta.dirname, '../examples/expense-tracker');
/** Artifacts in the generated app (a mid-size real build). */
const GENERATED = 300;
/** Seconds each throughput figure runs (after a warm-up). */
const RUN_S = Number(process.env.BVL_BENCH_API_RUN_S ?? 8);
/** Seconds the soak runs. */
const SOAK_S = Number(process.env.BVL_BENCH_API_SOAK_S ?? 60);
const CLIENTS = [1, 16];

type Log = (line: string) => void;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const f1 = (x: number) => x.toFixed(1);

/** Runs `clients` loops of `request` for `seconds`; latencies, errors and requests/s. */
async function load(clients: number, seconds: number, request: (i: number) => Promise<boolean>) {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; performance.now() < until; i += clients) {
        const t0 = performance.now();
        const ok = await request(i).catch((e: Error) => {
          firstError ??= `${e.message}${e.cause ? ` (${(e.cause as Error).message ?? e.cause})` : ''}`;
          return false;
        });
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { n: latencies.length, errors, firstError, rps: latencies.length / elapsed, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

/** The server: this file with --serve, in its own process (what `bvl serve` runs), printing URL and token. */
async function startServerProcess(cwd: string): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), new URL(import.meta.url).pathname, '--serve'], {
    cwd,
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout! }).once('line', done);
    child.once('exit', (code) => fail(new Error(`the server exited with ${code}`)));
  });
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  return { child, url, token };
}

/** RSS of a process in MB (Linux /proc). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** The generated app staged over HTTP, one PUT per artifact, as an agent would. */
async function stageGenerated(url: string, token: string, log: Log): Promise<void> {
  const doc = generateStack(GENERATED);
  const keys: Array<[string, string]> = [
    ['objects', 'object'],
    ['datasets', 'dataset'],
    ['views', 'view'],
    ['dashboards', 'dashboard'],
    ['apps', 'app'],
    ['data', 'seed'],
  ];
  const t0 = performance.now();
  let puts = 0;
  for (const [key, type] of keys)
    for (const body of (doc[key] ?? []) as Array<Record<string, any>>) {
      const name = type === 'seed' ? body.object : type === 'view' ? body.list.data.object : body.name;
      const r = await fetch(`${url}/v1/tenants/demo/packages/gen/drafts/${type}/${name}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (r.status !== 200) throw new Error(`staging ${type} ${name}: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
      puts++;
    }
  const ms = performance.now() - t0;
  log(`  staged the generated app over HTTP: ${puts} PUTs in ${f1(ms / 1000)} s (${f1(ms / puts)} ms per PUT, each with two L1 passes)`);
}

/** The same builds in a store this process opens, for the in-process figures. */
async function inProcessStore(): Promise<{ platform: Platform; tenant: string; close: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  const platform = await openPlatform(url ? { databaseUrl: url } : { dataDir: 'memory' });
  const tenant = `bench_api_${process.pid}`;
  const app = await readSource(join(EXAMPLE, 'app'), { draft: true });
  const drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
  // As the demo has it: the app published (with its L3 result), the agent's drafts staged.
  const expense = { tenant, package: 'expense' };
  await publishBuild(platform, { ...expense, prepare: (pinned) => stageDrafts(pinned, expense, app).then(() => {}) });
  await stageDrafts(platform, expense, drafts);
  await stageDrafts(platform, { tenant, package: 'gen' }, collectStack(generateStack(GENERATED), { draft: true }));
  return {
    platform,
    tenant,
    close: async () => {
      await dropTenant(platform, tenant).catch(() => {});
      await platform.close();
    },
  };
}

/** The API figures. */
export async function benchApi(log: Log): Promise<void> {
  const engine = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';
  log('');
  log(`API bench (${engine}; server in its own process on 127.0.0.1; clients in this one; ${cpus().length} cores, shared: compare ratios)`);
  const cwd = await mkdtemp(join(tmpdir(), 'bvl-bench-api-'));
  const server = await startServerProcess(cwd);
  const store = await inProcessStore();
  try {
    await stageGenerated(server.url, server.token, log);
    const verifyOver = (pkg: string) => async () => {
      const r = await fetch(`${server.url}/v1/tenants/demo/packages/${pkg}/verify`, { method: 'POST', headers: { authorization: `Bearer ${server.token}` } });
      await r.arrayBuffer();
      return r.status === 200;
    };
    for (const [pkg, what] of [
      ['expense', 'expense-tracker, the demo (app published, the broken drafts staged: 3 errors)'],
      ['gen', `generated app (${GENERATED} artifacts, clean)`],
    ] as const) {
      await load(4, 2, verifyOver(pkg)); // warm-up
      const scope = { tenant: store.tenant, package: pkg };
      await load(1, 1, async () => Boolean(await verifyBuild(store.platform, scope)));
      const inProcess = await load(1, RUN_S, async () => Boolean(await verifyBuild(store.platform, scope)));
      const overlay = await readOverlay(store.platform, scope);
      const pure = await load(1, Math.min(RUN_S, 4), async () => Boolean(verify(overlay.published, overlay.drafts)));
      log(`  verify on ${what}:`);
      log(`    in-process verifyBuild (store read + L1 + L2 + card): ${f1(inProcess.rps)} req/s, p50 ${f1(inProcess.p50)} ms, p99 ${f1(inProcess.p99)} ms`);
      log(`    in-process verify() alone (L1 + L2, no store):        ${f1(pure.rps)} req/s, p50 ${f1(pure.p50)} ms`);
      for (const clients of CLIENTS) {
        const r = await load(clients, RUN_S, verifyOver(pkg));
        log(
          `    HTTP, ${String(clients).padStart(2)} client${clients === 1 ? ' ' : 's'}: ${f1(r.rps)} req/s, p50 ${f1(r.p50)} ms, p99 ${f1(r.p99)} ms, ${r.errors} errors${r.firstError ? ` (${r.firstError})` : ''} — ${f1(r.rps / inProcess.rps)}× in-process verifyBuild throughput`,
        );
      }
    }

    // The soak: 16 clients for SOAK_S seconds, mostly verify, with card reads and staged writes mixed in.
    const dashboard = JSON.parse(await readFile(join(EXAMPLE, 'drafts/dashboards/exp_spending.json'), 'utf8'));
    const fixedDashboard = JSON.parse(await readFile(join(EXAMPLE, 'app/dashboards/exp_spending.json'), 'utf8'));
    const auth = { authorization: `Bearer ${server.token}` };
    const mixed = async (i: number) => {
      const base = `${server.url}/v1/tenants/demo/packages/expense`;
      const r =
        i % 10 === 3
          ? await fetch(`${base}/drafts/dashboard/exp_spending`, {
              method: 'PUT',
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify(i % 20 === 3 ? dashboard : fixedDashboard),
            })
          : i % 10 === 7
            ? await fetch(`${base}/health`, { headers: auth })
            : await fetch(`${base}/verify`, { method: 'POST', headers: auth });
      await r.arrayBuffer();
      return r.status === 200;
    };
    const samples: Array<[number, number]> = [];
    const t0 = performance.now();
    const sampler = setInterval(() => samples.push([(performance.now() - t0) / 1000, rssMb(server.child.pid!)]), 1000);
    const soak = await load(16, SOAK_S, mixed);
    clearInterval(sampler);
    const window = Math.max(1, Math.min(10, Math.floor(samples.length / 3)));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    const first = median(samples.slice(0, window).map(([, r]) => r));
    const last = median(samples.slice(-window).map(([, r]) => r));
    const peak = Math.max(...samples.map(([, r]) => r));
    log(
      `  soak: 16 clients × ${SOAK_S} s (80% verify, 10% card, 10% staged writes): ${soak.n} requests, ${soak.errors} errors, ${f1(soak.rps)} req/s, p50 ${f1(soak.p50)} ms, p99 ${f1(soak.p99)} ms`,
    );
    const quarter = (q: number) => f1(samples[Math.min(samples.length - 1, Math.floor((q * samples.length) / 4))]?.[1] ?? Number.NaN);
    log(
      `  server RSS: first ${window} s ${f1(first)} MB → last ${window} s ${f1(last)} MB (${last >= first ? '+' : ''}${f1(((last - first) / first) * 100)}%), peak ${f1(peak)} MB; at 0/¼/½/¾/end: ${[0, 1, 2, 3, 4].map(quarter).join(' / ')} MB (${samples.length} samples)`,
    );
    if (soak.errors > 0) {
      log(`  SOAK FAILED: ${soak.errors} errors`);
      process.exitCode = 1;
    }
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((done) => server.child.once('exit', done));
    await store.close();
    await rm(cwd, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) {
  // The server process: the composition root `bvl serve` runs, on this process's folder, with the demo.
  const { startServer } = await import('@bvl/api/main');
  const { createWriteStream } = await import('node:fs');
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    demo: true,
    env: process.env,
    cwd: process.cwd(),
    version: 'bench',
    // One JSON line per request, as bvl serve writes them, to /dev/null rather than the bench's terminal.
    logTo: createWriteStream('/dev/null'),
  });
  process.stdout.write(`${JSON.stringify({ url: server.url, token: server.demo?.token })}\n`);
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchApi((l) => console.log(l));
}
