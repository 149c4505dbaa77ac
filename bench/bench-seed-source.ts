// The seed writer alone (applySeeds), fed by a seed held in memory or by a stored seed read by
// cursor (storedSeedRecords): held JS heap + array buffers (sampled after full GCs, every 100 ms) and CPU time of
// this process, first publish (upsert into an empty table) and replay (every record updates).
//   BVL_ROOT=<tree> BVL_ROWS=100000 BVL_MODE=held|stored BVL_SAMPLE=1|0 DATABASE_URL=… node --expose-gc --import tsx bench/bench-seed-source.ts
// BVL_ROOT lets the same script drive another checkout (held mode only: main has no source option).
import { randomBytes } from 'node:crypto';

const root = process.env.BVL_ROOT ?? process.cwd();
const { buildGraph, collectStack } = await import(`${root}/packages/metadata/src/index.ts`);
const P = await import(`${root}/packages/platform/src/index.ts`);
const { sql } = await import('kysely');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const rows = Number(process.env.BVL_ROWS ?? 100_000);
const mode = process.env.BVL_MODE ?? 'held';
const sample = process.env.BVL_SAMPLE !== '0';
const platform = await P.openPlatform({ databaseUrl: process.env.DATABASE_URL });
const tenant = `srcbench_${process.pid}_${randomBytes(3).toString('hex')}`;
const scope = { tenant, package: 'app' };
const schema = `t_${tenant}`;
const objects = [{ name: 'kv', fields: { code: { type: 'text' }, name: { type: 'text' }, amount: { type: 'number' }, note: { type: 'text' } } }];
const recordsOf = () =>
  Array.from({ length: rows }, (_, i) => ({ code: `key-${i}`, name: `Name number ${i}`, amount: i * 1.25, note: i % 3 === 0 ? 'some note text' : null }));
const out: Record<string, unknown> = { mode, rows, root };
try {
  await P.stageDrafts(platform, scope, collectStack({ objects, data: [{ object: 'kv', externalId: 'code', records: [] }] }, { draft: true }));
  if ((await P.publishPackage(platform, scope)).outcome !== 'published') throw new Error('not published');
  const schemaName = P.tenantSchema ? P.tenantSchema(tenant) : schema;
  let graph: unknown;
  let records: unknown;
  if (mode === 'stored') {
    await P.stageDrafts(platform, scope, collectStack({ objects, data: [{ object: 'kv', externalId: 'code', records: recordsOf() }] }, { draft: true }));
    const row = await platform.db
      .selectFrom('bvl.metadata_items')
      .select(['package', 'name', 'state', 'content_hash'])
      .where('tenant_id', '=', tenant)
      .where('type', '=', 'seed')
      .where('state', '=', 'draft')
      .executeTakeFirstOrThrow();
    // The graph of the seed with its records left out: read through its handle.
    const { graph: g } = buildGraph(collectStack({ objects, data: [{ object: 'kv', externalId: 'code', records: [] }] }));
    const seed = [...g.seeds.values()][0];
    g.seeds.set(seed.name, {
      ...seed,
      def: { ...seed.def, records: [] },
      recordCount: rows,
      stored: { package: row.package, name: row.name, state: row.state, contentHash: row.content_hash },
    });
    graph = g;
    records = (trx: unknown, s: { stored?: unknown }) => (s.stored ? P.storedSeedRecords(trx, tenant, s.stored) : P.heldSeedRecords(trx, s));
  }
  // The heap and typed arrays' memory (a Bloom filter's bits are outside the heap).
  const held = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  gc();
  const base = held();
  if (mode === 'held') graph = buildGraph(collectStack({ objects, data: [{ object: 'kv', externalId: 'code', records: recordsOf() }] })).graph;
  const run = async (label: string) => {
    gc();
    const before = held();
    let peak = before;
    const timer = sample
      ? setInterval(() => {
          gc!();
          peak = Math.max(peak, held());
        }, 100)
      : undefined;
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const applied = await P.applySeeds(platform, { schema: schemaName, graph, now: new Date(), ...(records ? { records } : {}) });
    const c = process.cpuUsage(cpu);
    const wall = performance.now() - t0;
    if (timer) clearInterval(timer);
    if (applied.errors.length > 0) throw new Error(JSON.stringify(applied.errors.slice(0, 2)));
    out[label] = {
      cpuMs: Math.round((c.user + c.system) / 1000),
      wallMs: Math.round(wall),
      inserted: applied.inserted,
      updated: applied.updated,
      ...(sample ? { heldOverBaseB: peak - base, bPerRow: Math.round(((peak - base) / rows) * 10) / 10, riseDuringB: peak - before } : {}),
    };
  };
  await run('first');
  await sql`update ${sql.id(schemaName, 'kv')} set amount = amount + 1`.execute(platform.db);
  await run('replay');
} finally {
  await P.dropTenant(platform, tenant).catch(() => {});
  await platform.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
