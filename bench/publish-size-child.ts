// A child of bench-publish-size.ts: stages a generated package of $BVL_OBJECTS objects into a new
// tenant (PGlite in memory, or $DATABASE_URL), publishes it, and prints one JSON line: the publish's
// time and its peak memory (RSS sampled every 20 ms while it runs, and the process's max RSS), then drops the
// tenant; with $BVL_REPUBLISH=retype, a second line for a republish changing a column of every table.
import { randomBytes } from 'node:crypto';
import { collectStack } from '@bvl/metadata';
import { dropTenant, openPlatform, publishPackage, readLockTable, stageDrafts } from '@bvl/platform';
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
  // $BVL_REPUBLISH=retype: then republish the package with field qty a text in every object (a
  // column type change in every table: built ahead as shadow columns when the package is large,
  // swapped in by the switch), measured apart: its time, peak memory,
  // and the locks of its switch — held at its commit (pg_locks), or counted by the refusal.
  if (process.env.BVL_REPUBLISH === 'retype' && r.outcome === 'published') {
    const doc = generateStack(Math.round(objects * 7.01));
    for (const o of doc.objects as Array<{ fields: Record<string, unknown> }>) o.fields = { ...o.fields, qty: { type: 'text' } };
    await stageDrafts(platform, scope, collectStack(doc, { draft: true }));
    const table = await readLockTable(platform.db);
    let peak2 = process.memoryUsage().rss;
    const before2 = peak2;
    const sampler2 = setInterval(() => {
      peak2 = Math.max(peak2, process.memoryUsage().rss);
    }, 20);
    let held: number | undefined;
    let batches2 = 0;
    const t1 = performance.now();
    const r2 = await publishPackage(platform, scope, {
      onStaged: (s) => (batches2 = s.batches),
      beforeCommit: async (trx) => {
        held = Number((await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_locks where pid = pg_backend_pid()`.execute(trx)).rows[0]?.n);
      },
    });
    const ms2 = performance.now() - t1;
    clearInterval(sampler2);
    peak2 = Math.max(peak2, process.memoryUsage().rss);
    const refusal = r2.outcome === 'refused' ? r2.issues.find((i) => i.code === 'publish_exceeds_lock_table') : undefined;
    const counted = refusal?.message.match(/takes about ([\d,]+) locks/)?.[1];
    process.stdout.write(
      `${JSON.stringify({
        republish: true,
        objects,
        outcome: r2.outcome,
        ...(r2.outcome === 'refused' ? { codes: r2.issues.map((i) => i.code), message: refusal?.message } : {}),
        ...(r2.outcome === 'failed' ? { error: r2.error.slice(0, 300) } : {}),
        ...(r2.outcome === 'published' ? { steps: r2.ddlSteps } : {}),
        batches: batches2,
        ms: ms2,
        firstMs: ms,
        rssBeforeMb: before2 / 2 ** 20,
        peakRssMb: peak2 / 2 ** 20,
        ...(held !== undefined ? { locksHeldAtCommit: held } : {}),
        ...(counted ? { locksCounted: Number(counted.replaceAll(',', '')) } : {}),
        lockTable: table.capacity,
      })}\n`,
    );
  }
} finally {
  await dropTenant(platform, scope.tenant).catch(() => {});
  await platform.close();
}
