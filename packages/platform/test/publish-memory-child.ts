// A child process for run-seeds-stream.test.ts (run with --expose-gc; the test stages and drops in its
// own process and runs only `publish` here; `stage` and `drop` are for a run by hand):
//   stage <tenant> <records>     stages a package whose seed holds <records> records, and exits
//   publish <tenant> <records>   publishes it (a process that did not stage it, as `bvl publish`
//                                after `bvl stage`), and prints, as JSON, how far memory rose over
//                                what the process held before the publish: `held`, the JS heap
//                                sampled after a full GC every 25 ms (what the publish kept alive);
//                                `heap`, the JS heap's peak sampled without a GC (garbage included,
//                                as the seeds bench reads it); `external`, the peak of memory outside
//                                the heap (Buffers, ArrayBuffers — PGlite's WebAssembly memory among
//                                them); `rss`, the process's peak resident set (getrusage).
// PostgreSQL when BVL_TEST_ENGINE=postgres (DATABASE_URL), else PGlite in BVL_DATA_DIR.
// BVL_SEED_STREAM=off reads every record list whole (the path before parts: one JSON text).
import { collectStack } from '@bvl/metadata';
import { dropTenant, openPlatform, publishPackage, SEED_STREAM, stageDrafts } from '../src/index.ts';
import { memorySeedStack } from './memory-seed-stack.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const [mode, tenant, n] = process.argv.slice(2);
const size = Number(n);
if (!tenant || !Number.isInteger(size)) throw new Error('usage: stage|publish|drop <tenant> <records>');
if (process.env.BVL_SEED_STREAM === 'off') SEED_STREAM.bytes = 2_000_000_000;
const platform = await openPlatform(
  process.env.BVL_TEST_ENGINE === 'postgres' ? { databaseUrl: process.env.DATABASE_URL } : { dataDir: process.env.BVL_DATA_DIR ?? 'memory' },
);
const scope = { tenant, package: 'app' };
try {
  if (mode === 'stage') {
    await stageDrafts(platform, scope, collectStack(memorySeedStack(size), { draft: true }));
  } else if (mode === 'publish') {
    gc();
    const m0 = process.memoryUsage();
    const rss0 = process.resourceUsage().maxRSS * 1024;
    let held = m0.heapUsed;
    let heap = m0.heapUsed;
    let external = m0.external;
    let samples = 0;
    // Memory outside the heap sampled on its own, every 2 ms and without a GC: a record list read
    // whole lives there a short while (the protocol's buffer of its text), which the 25 ms samples,
    // every other one after a full GC, could miss on a loaded machine (seen: 70 bytes a record where 240–430 is usual).
    const fast = setInterval(() => {
      external = Math.max(external, process.memoryUsage().external);
    }, 2);
    const timer = setInterval(() => {
      const raw = process.memoryUsage();
      heap = Math.max(heap, raw.heapUsed);
      external = Math.max(external, raw.external);
      if (samples++ % 2 === 0) {
        gc();
        held = Math.max(held, process.memoryUsage().heapUsed);
      }
    }, 25);
    const published = await publishPackage(platform, scope);
    clearInterval(timer);
    clearInterval(fast);
    if (published.outcome !== 'published') throw new Error(`not published: ${published.outcome}`);
    if (published.seedApplied.inserted !== size + 5) throw new Error(`inserted ${published.seedApplied.inserted} of ${size + 5}`);
    const m1 = process.memoryUsage();
    process.stdout.write(
      `${JSON.stringify({
        held: Math.max(held, m1.heapUsed) - m0.heapUsed,
        heap: Math.max(heap, m1.heapUsed) - m0.heapUsed,
        external: Math.max(external, m1.external) - m0.external,
        rss: process.resourceUsage().maxRSS * 1024 - Math.max(rss0, m0.rss),
        rssBefore: m0.rss,
      })}\n`,
    );
  } else if (mode === 'drop') await dropTenant(platform, tenant);
  else throw new Error(`unknown mode ${mode}`);
} finally {
  await platform.close();
}
