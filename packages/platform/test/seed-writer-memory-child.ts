// A child process for run-seeds-flat.test.ts (run with --expose-gc): applies seeds of $BVL_SIZES
// records each (one text key per record) into a fresh tenant, and prints, as JSON, how far the JS
// heap (sampled after a full GC) rose above what the process held before each run — the records
// themselves included in that level, so the rise is what the seed writer kept.
import { randomBytes } from 'node:crypto';
import { buildGraph, collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import { tenantSchema } from '../src/identifier.ts';
import { applySeeds, dropTenant, openPlatform, publishPackage, stageDrafts } from '../src/index.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const platform = await openPlatform(process.env.BVL_TEST_ENGINE === 'postgres' ? { databaseUrl: process.env.DATABASE_URL } : { dataDir: 'memory' });
const tenant = `flat_${process.pid}_${randomBytes(3).toString('hex')}`;
const objects = [{ name: 'kv', fields: { code: { type: 'text' }, val: { type: 'number' } } }];
const out: Record<string, number> = {};
try {
  await stageDrafts(
    platform,
    { tenant, package: 'app' },
    collectStack({ objects, data: [{ object: 'kv', externalId: 'code', records: [] }] }, { draft: true }),
  );
  const published = await publishPackage(platform, { tenant, package: 'app' });
  if (published.outcome !== 'published') throw new Error(`not published: ${published.outcome}`);
  for (const size of (process.env.BVL_SIZES ?? '50000,250000').split(',').map(Number)) {
    await sql`delete from ${sql.id(tenantSchema(tenant), 'kv')}`.execute(platform.db);
    const records = Array.from({ length: size }, (_, i) => ({ code: `key-${size}-${i}`, val: i }));
    const { graph } = buildGraph(collectStack({ objects, data: [{ object: 'kv', externalId: 'code', records }] }));
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const timer = setInterval(() => {
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 100);
    const applied = await applySeeds(platform, { schema: tenantSchema(tenant), graph, now: new Date() });
    clearInterval(timer);
    if (applied.inserted !== size) throw new Error(`inserted ${applied.inserted} of ${size}: ${JSON.stringify(applied.errors.slice(0, 3))}`);
    out[size] = peak - before;
  }
} finally {
  await dropTenant(platform, tenant).catch(() => {});
  await platform.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
