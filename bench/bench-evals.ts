// The L5 bench: the golden suite through the blueprint agent — wall time and time per attempt on
// embedded PGlite and (with DATABASE_URL) PostgreSQL at 1, 2 and 4 attempts at once, then the
// queue as a team runs it: `bvl eval --agent blueprint --queue --wait` with 2 `bvl eval-worker`
// processes (and 1 and 4 with BVL_BENCH_WORKERS=1,2,4). Prints figures; asserts nothing (the
// machine is shared and noisy: compare ratios). Run: npm run build && npx tsx bench/bench-evals.ts

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { blueprintAgent, type GoldenCase, loadGoldenCases, openEvalQueue, runEvals } from '@bvl/eval-runner';
import { openPlatform, type Platform } from '@bvl/platform';
import { sql } from 'kysely';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'apps/cli/bin/bvl.js');
const GOLDEN = join(ROOT, 'evals/golden');
const log = (line: string) => console.log(line);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const suite = (label: string) => `bench-${label}-${randomBytes(3).toString('hex')}`;
const load = () => `load ${loadavg()[0]!.toFixed(1)}`;

async function local(platform: Platform, cases: GoldenCase[], label: string, concurrency: number) {
  const t0 = performance.now();
  const r = await runEvals({ platform, agents: [blueprintAgent()], cases, suite: suite(label), concurrency });
  const wall = performance.now() - t0;
  const each = r.attempts.map((a) => a.latencyMs);
  const s = r.summary;
  log(
    `${label}, concurrency ${concurrency}: ${r.attempts.length} attempts in ${(wall / 1000).toFixed(1)} s — ${(wall / r.attempts.length).toFixed(0)} ms per attempt of wall, attempt latency median ${median(each).toFixed(0)} ms (pass ${s.pass}, fail ${s.fail} of which ${s.expectedFail} expected, error ${s.error}; ${load()})`,
  );
  return wall;
}

/** Runs bvl and resolves its exit code and output. */
function bvl(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

/** The queue as a team runs it: workers started, then `bvl eval --queue --wait` from the clock's start to its end. */
async function queued(platform: Platform, url: string, workers: number) {
  const schema = `bvl_bench_${randomBytes(3).toString('hex')}`;
  const env = { ...process.env, DATABASE_URL: url, BVL_QUEUE_SCHEMA: schema };
  // Create the queue once before the workers race to.
  await (await openEvalQueue({ databaseUrl: url, schema })).close();
  const procs = Array.from({ length: workers }, () =>
    spawn(process.execPath, [BIN, 'eval-worker', '--poll', '0.5', '--idle-exit', '600', '--cases-dir', GOLDEN], { env, stdio: 'ignore' }),
  );
  try {
    // Let the workers start (pg-boss, the platform) before the clock runs.
    await new Promise((r) => setTimeout(r, 4_000));
    const t0 = performance.now();
    const r = await bvl(
      ['eval', '--agent', 'blueprint', '--queue', '--wait', '--cases-dir', GOLDEN, '--suite', suite(`queue${workers}`), '--format', 'json'],
      env,
    );
    const wall = performance.now() - t0;
    if (r.code !== 0) throw new Error(`bvl eval --queue --wait exited ${r.code}: ${r.err}`);
    const out = JSON.parse(r.out) as { attempts: number; pass: number; fail: number; expectedFail: number };
    log(
      `queue, bvl eval --agent blueprint --queue --wait with ${workers} bvl eval-worker process${workers === 1 ? '' : 'es'}: ${out.attempts} attempts in ${(wall / 1000).toFixed(1)} s (pass ${out.pass}, fail ${out.fail} of which ${out.expectedFail} expected; ${load()})`,
    );
    return wall;
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(platform.db);
  }
}

log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'} × ${cpus().length}, node ${process.version}, ${load()} (shared and noisy: compare ratios)`);
const cases = (await loadGoldenCases(GOLDEN)).filter((c) => c.origin === undefined);
{
  const platform = await openPlatform({ dataDir: 'memory' });
  await local(platform, cases, 'PGlite (in memory)', 1);
  await platform.close();
}
const url = process.env.DATABASE_URL;
if (url) {
  const platform = await openPlatform({ databaseUrl: url });
  const walls: Record<number, number> = {};
  for (const n of [1, 2, 4]) walls[n] = await local(platform, cases, 'PostgreSQL', n);
  log(`local speed-up: 1 → 2 at once ×${(walls[1]! / walls[2]!).toFixed(2)}, 1 → 4 at once ×${(walls[1]! / walls[4]!).toFixed(2)}`);
  const workers = (process.env.BVL_BENCH_WORKERS ?? '2').split(',').map(Number);
  const q: Record<number, number> = {};
  for (const n of workers) q[n] = await queued(platform, url, n);
  if (q[1] && q[2]) log(`queue speed-up: 1 → 2 workers ×${(q[1] / q[2]).toFixed(2)}${q[4] ? `, 1 → 4 workers ×${(q[1] / q[4]).toFixed(2)}` : ''}`);
  await platform.close();
} else log('PostgreSQL and the queue: set DATABASE_URL to measure them');
