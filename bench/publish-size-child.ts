// A child of bench-publish-size.ts: stages a generated package of $BVL_OBJECTS objects into a new
// tenant (PGlite in memory, or $DATABASE_URL), publishes it, and prints one JSON line: the publish's
// time and its peak memory (RSS sampled every 20 ms while it runs, and the process's max RSS), then drops the tenant.
import { randomBytes } from 'node:crypto';
import { collectStack } from '@bvl/metadata';
import { dropTenant, openPlatform, publishPackage, stageDrafts } from '@bvl/platform';
import { generateStack } from '@bvl/test-support';
import { sql } from 'kysely';

const objects = Number(process.env.BVL_OBJECTS);
const url = process.env.DATABASE_URL;
const platform = await openPlatform(url ? { databaseUrl: url } : { dataDir: 'memory' });
const scope = { tenant: `bench_size_${randomBytes(4).toString('hex')}`, package: 'app' };
try {
  const set = collectStack(generateStack(Math.round(objects * 7.01)), { draft: true });
  await stageDrafts(platform, scope, set);
  const locks = url ? (await sql<{ v: string }>`select current_setting('max_locks_per_transaction') as v`.execute(platform.db)).rows[0]?.v : undefined;
  let peak = process.memoryUsage().rss;
  const before = peak;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  let batches = 0;
  const t0 = performance.now();
  const r = await publishPackage(platform, scope, { onStaged: (s) => (batches = s.batches) });
  const ms = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const line = {
    objects,
    artifacts: set.artifacts.length,
    outcome: r.outcome,
    ...(r.outcome === 'failed' ? { error: r.error.slice(0, 300) } : {}),
    ...(r.outcome === 'published' ? { steps: r.ddlSteps, rows: r.seedApplied.inserted } : {}),
    batches,
    ms,
    rssBeforeMb: before / 2 ** 20,
    peakRssMb: peak / 2 ** 20,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    ...(locks ? { maxLocksPerTransaction: locks } : {}),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
} finally {
  await dropTenant(platform, scope.tenant).catch(() => {});
  await platform.close();
}
