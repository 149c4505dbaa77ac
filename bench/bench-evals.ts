// The L5 bench: the golden suite through the blueprint agent — wall time and time per attempt on
// embedded PGlite and (with DATABASE_URL) PostgreSQL, local concurrency 1 → 4, and the queue with
// 1, 2 and 4 `bvl eval-worker` processes. Prints figures; asserts nothing (the machine is shared
// and noisy: compare ratios). Run: npm run build && npx tsx bench/bench-evals.ts

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { blueprintAgent, enqueueBatch, type GoldenCase, loadGoldenCases, openEvalQueue, plannedAttempts, runEvals, waitForBatch } from '@bvl/eval-runner';
import { openPlatform, type Platform } from '@bvl/platform';
import { sql } from 'kysely';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'apps/cli/bin/bvl.js');
const log = (line: string) => console.log(line);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const suite = (label: string) => `bench-${label}-${randomBytes(3).toString('hex')}`;

async function local(platform: Platform, cases: GoldenCase[], label: string, concurrency: number) {
  const t0 = performance.now();
  const r = await runEvals({ platform, agent: blueprintAgent(), cases, suite: suite(label), concurrency });
  const wall = performance.now() - t0;
  const each = r.attempts.map((a) => a.latencyMs);
  log(
    `${label}, concurrency ${concurrency}: ${r.attempts.length} attempts in ${(wall / 1000).toFixed(1)} s — ${(wall / r.attempts.length).toFixed(0)} ms per attempt of wall, attempt latency median ${median(each).toFixed(0)} ms (pass ${r.summary.pass}, fail ${r.summary.fail}, error ${r.summary.error})`,
  );
  return wall;
}

async function queued(platform: Platform, url: string, cases: GoldenCase[], workers: number) {
  const schema = `bvl_bench_${randomBytes(3).toString('hex')}`;
  const queue = await openEvalQueue({ databaseUrl: url, schema });
  const procs = Array.from({ length: workers }, () =>
    spawn(process.execPath, [BIN, 'eval-worker', '--poll', '0.5', '--idle-exit', '600', '--cases-dir', join(ROOT, 'evals/golden')], {
      env: { ...process.env, DATABASE_URL: url, BVL_QUEUE_SCHEMA: schema },
      stdio: 'ignore',
    }),
  );
  try {
    // Let the workers start (pg-boss, the platform) before the clock runs.
    await new Promise((r) => setTimeout(r, 4_000));
    const t0 = performance.now();
    const batch = await enqueueBatch(platform, queue, { suite: suite(`queue${workers}`), agent: 'blueprint', cases });
    await waitForBatch(platform, batch);
    const wall = performance.now() - t0;
    log(`queue, ${workers} worker process${workers === 1 ? '' : 'es'}: ${plannedAttempts(batch)} attempts in ${(wall / 1000).toFixed(1)} s`);
    return wall;
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
    await queue.close();
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(platform.db);
  }
}

log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'} × ${cpus().length}, node ${process.version} (shared and noisy: compare ratios)`);
const cases = (await loadGoldenCases(join(ROOT, 'evals/golden'))).filter((c) => c.origin === undefined);
{
  const platform = await openPlatform({ dataDir: 'memory' });
  await local(platform, cases, 'PGlite (in memory)', 1);
  await platform.close();
}
const url = process.env.DATABASE_URL;
if (url) {
  const platform = await openPlatform({ databaseUrl: url });
  const one = await local(platform, cases, 'PostgreSQL', 1);
  const four = await local(platform, cases, 'PostgreSQL', 4);
  log(`local speed-up 1 → 4 at once: ×${(one / four).toFixed(2)}`);
  const q: Record<number, number> = {};
  for (const n of [1, 2, 4]) q[n] = await queued(platform, url, cases, n);
  log(`queue speed-up: 1 → 2 workers ×${(q[1]! / q[2]!).toFixed(2)}, 1 → 4 workers ×${(q[1]! / q[4]!).toFixed(2)}`);
  await platform.close();
} else log('PostgreSQL and the queue: set DATABASE_URL to measure them');
