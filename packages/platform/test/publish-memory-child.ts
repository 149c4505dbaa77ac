// A child process for run-seeds-stream.test.ts (run with --expose-gc): stages a package whose seed
// holds $BVL_SIZES records (one size after another, each in a fresh tenant), then publishes it
// while sampling the JS heap after a full GC, and prints, as JSON, how far it rose above what the
// process held once the drafts were staged (nothing of the records held then): the peak of what
// the first publish held, per size.
import { randomBytes } from 'node:crypto';
import { collectStack } from '@bvl/metadata';
import { dropTenant, openPlatform, publishPackage, stageDrafts } from '../src/index.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const platform = await openPlatform(process.env.BVL_TEST_ENGINE === 'postgres' ? { databaseUrl: process.env.DATABASE_URL } : { dataDir: 'memory' });
const objects = [
  { name: 'region', fields: { name: { type: 'text' } } },
  {
    name: 'row',
    fields: {
      code: { type: 'text' },
      title: { type: 'text' },
      amount: { type: 'number' },
      due: { type: 'date' },
      region: { type: 'lookup', reference: 'region' },
    },
  },
];
const out: Record<string, { peak: number; gated: number }> = {};
for (const size of (process.env.BVL_SIZES ?? '20000,120000').split(',').map(Number)) {
  const tenant = `stream_${process.pid}_${randomBytes(3).toString('hex')}`;
  const scope = { tenant, package: 'app' };
  try {
    {
      const records = Array.from({ length: size }, (_, i) => ({
        code: `R-${i}`,
        title: `Row ${i}`,
        amount: i % 997,
        due: { dialect: 'cel', source: `daysAgo(${i % 365})` },
        region: `Region ${i % 5}`,
      }));
      const regions = Array.from({ length: 5 }, (_, i) => ({ name: `Region ${i}` }));
      await stageDrafts(
        platform,
        scope,
        collectStack(
          {
            objects,
            data: [
              { object: 'region', records: regions },
              { object: 'row', externalId: 'code', records },
            ],
          },
          { draft: true },
        ),
      );
    }
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    let gated = before;
    const timer = setInterval(() => {
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 50);
    const published = await publishPackage(platform, scope, {
      interleave: async (point) => {
        if (point !== 'gated') return;
        gc();
        gated = process.memoryUsage().heapUsed;
      },
    });
    clearInterval(timer);
    if (published.outcome !== 'published') throw new Error(`not published: ${published.outcome}`);
    if (published.seedApplied.inserted !== size + 5) throw new Error(`inserted ${published.seedApplied.inserted} of ${size + 5}`);
    gc();
    peak = Math.max(peak, gated, process.memoryUsage().heapUsed);
    out[size] = { peak: peak - before, gated: gated - before };
  } finally {
    await dropTenant(platform, tenant).catch(() => {});
  }
}
await platform.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
