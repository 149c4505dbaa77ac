// The seeds bench (issue 21, item 2): a million generated seed rows published into one package —
// first publish and replay (a republish of the same seeds: upsert by externalId) — as ratios to a
// raw bulk insert of the same rows measured in the same run, with peak memory, on PGlite and on
// PostgreSQL (DATABASE_URL). One input holds at most INPUT_LIMITS.records (500,000) seed records,
// so the rows come as seed artifacts of at most that many each (a package staged from more than
// one input, e.g. `bvl publish <stack> --drafts <stack>`).
//   BVL_BENCH_SEED_ROWS=500000,1000000   row counts to run (default 1000000)
//   BVL_BENCH_SEED_ENGINES=pglite,postgres   engines (default both; PostgreSQL needs DATABASE_URL)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type ArtifactSet, collectStack, INPUT_LIMITS } from '@bvl/metadata';
import {
  applySeeds,
  CopyData,
  dropTenant,
  openPlatform,
  type Platform,
  type PlatformOptions,
  pooledSeedRecords,
  publishPackage,
  stageDrafts,
  tenantSeedRecords,
} from '@bvl/platform';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { type Goal, ms } from './measure.ts';

const ROWS = (process.env.BVL_BENCH_SEED_ROWS ?? '1000000').split(',').map((s) => Number(s.trim()));
const ENGINES = new Set((process.env.BVL_BENCH_SEED_ENGINES ?? 'pglite,postgres').split(',').map((s) => s.trim()));
/** Rows per raw statement: the baseline is bulk, but one statement of a million rows' arrays is not what a loader sends. */
const RAW_BATCH = 100_000;
const MB = 1024 * 1024;

/** The stack: a lookup target (50 rows) and one object seeded with `rows` records, in seeds of at most INPUT_LIMITS.records. */
function seedStack(rows: number): ArtifactSet {
  const regions = Array.from({ length: 50 }, (_, i) => ({ name: `Region ${i}` }));
  const record = (i: number) => ({
    code: `R-${i}`,
    title: `Row ${i}`,
    amount: (i % 997) * 1.25,
    status: ['open', 'won', 'lost'][i % 3],
    due: { dialect: 'cel', source: `daysAgo(${i % 365})` },
    done: i % 2 === 0,
    region: `Region ${i % 50}`,
  });
  const seeds: unknown[] = [{ object: 'seed_region', records: regions }];
  for (let start = 0; start < rows; start += INPUT_LIMITS.records) {
    const end = Math.min(rows, start + INPUT_LIMITS.records);
    seeds.push({ object: 'seed_row', externalId: 'code', records: Array.from({ length: end - start }, (_, k) => record(start + k)) });
  }
  return collectStack(
    {
      objects: [
        { name: 'seed_region', fields: { name: { type: 'text' } } },
        {
          name: 'seed_row',
          fields: {
            code: { type: 'text' },
            title: { type: 'text' },
            amount: { type: 'currency' },
            status: { type: 'select', options: ['open', 'won', 'lost'] },
            due: { type: 'date' },
            done: { type: 'boolean' },
            region: { type: 'lookup', reference: 'seed_region' },
          },
        },
      ],
      data: seeds,
    },
    { draft: true },
  );
}

/**
 * Samples RSS and the JS heap every 20 ms while `fn` runs: their peaks, over what the process held
 * before. (RSS keeps what an earlier step freed, so a small run can show no RSS growth at all; the
 * heap's peak over its level before, after a GC when --expose-gc is given, is what `fn` held.)
 */
async function withPeak<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; before: number; peak: number; heap: number }> {
  global.gc?.();
  const before = process.memoryUsage.rss();
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = before;
  let heapPeak = heapBefore;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 20);
  const t0 = performance.now();
  try {
    const value = await fn();
    const m = process.memoryUsage();
    return { value, ms: performance.now() - t0, before, peak: Math.max(peak, m.rss), heap: Math.max(heapPeak, m.heapUsed) - heapBefore };
  } finally {
    clearInterval(timer);
  }
}

/**
 * What `fn` holds at most: every 100 ms a full GC, then the heap and the ArrayBuffers (a typed
 * array's store is outside the heap) over their level before — live memory, not garbage waiting
 * for a collection (which the peak of {@link withPeak} includes). Slows `fn`: not timed.
 */
async function withHeld<T>(fn: () => Promise<T>): Promise<{ value: T; held: number; before: number; peak: number }> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const live = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = live();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, live());
  }, 100);
  try {
    const value = await fn();
    peak = Math.max(peak, live());
    return { value, held: peak - before, before, peak };
  } finally {
    clearInterval(timer);
  }
}

const copyLine = (values: ReadonlyArray<string | null>) =>
  values.map((v) => (v === null ? '\\N' : v.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t')))).join('\t');

interface Raw {
  readonly unnestBare: number;
  readonly copyBare: number;
  readonly copySame: number;
}

/**
 * The baselines, each into an empty copy of the published table, the rows read back as text first
 * (untimed): one INSERT … SELECT unnest(…) per 100k rows into a bare copy (columns and defaults, no
 * index — the issue's baseline), COPY of the same text into a bare copy, and COPY into a copy with
 * the same primary key, indexes and foreign keys as the published table.
 */
async function rawInserts(platform: Platform, schema: string, table: string): Promise<Raw> {
  const db = platform.db as unknown as Kysely<Record<string, never>>;
  const columns = (
    await sql<{ name: string; type: string }>`
      select a.attname as name, format_type(a.atttypid, a.atttypmod) as type from pg_attribute a
      where a.attrelid = ${`"${schema}"."${table}"`}::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum`.execute(db)
  ).rows;
  const source = sql.id(schema, table);
  const arrays: Array<Array<string | null>> = columns.map(() => []);
  for (let offset = 0; ; offset += RAW_BATCH) {
    const page = (
      await sql<
        Record<string, string | null>
      >`select ${sql.join(columns.map((c) => sql`${sql.ref(c.name)}::text as ${sql.id(c.name)}`))} from ${source} order by id limit ${RAW_BATCH} offset ${offset}`.execute(
        db,
      )
    ).rows;
    for (const r of page) columns.forEach((c, j) => arrays[j]!.push(r[c.name] ?? null));
    if (page.length < RAW_BATCH) break;
  }
  const n = arrays[0]!.length;
  const batches = Array.from({ length: Math.ceil(n / RAW_BATCH) }, (_, b) => [b * RAW_BATCH, Math.min(n, (b + 1) * RAW_BATCH)] as const);
  const fks = (
    await sql<{
      def: string;
    }>`select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = ${`"${schema}"."${table}"`}::regclass and contype = 'f'`.execute(db)
  ).rows;
  const names = sql.join(columns.map((c) => sql.id(c.name)));
  const time = async (name: string, same: boolean, fill: (trx: Kysely<Record<string, never>>, target: string) => Promise<void>) => {
    const target = `${table}_raw_${name}`;
    await sql`create table ${sql.id(schema, target)} (like ${source} ${sql.raw(same ? 'including all' : 'including defaults')})`.execute(db);
    for (const fk of fks) await sql`alter table ${sql.id(schema, target)} add ${sql.raw(fk.def)}`.execute(db);
    const t0 = performance.now();
    await db.transaction().execute(async (trx) => fill(trx, target));
    const took = performance.now() - t0;
    await sql`drop table ${sql.id(schema, target)}`.execute(db);
    return took;
  };
  const unnestBare = await time('unnest', false, async (trx, target) => {
    for (const [a, b] of batches)
      await sql`insert into ${sql.id(schema, target)} (${names})
        select ${sql.join(columns.map((c, j) => sql`${sql.ref(`u.c${j}`)}::${sql.raw(c.type)}`))}
        from unnest(${sql.join(arrays.map((col) => sql`${col.slice(a, b)}::text[]`))}) as u(${sql.join(columns.map((_, j) => sql.id(`c${j}`)))})`.execute(trx);
  });
  const copy = async (trx: Kysely<Record<string, never>>, target: string) => {
    const quoted = `"${schema}"."${target}" (${columns.map((c) => `"${c.name}"`).join(', ')})`;
    for (const [a, b] of batches) {
      let text = '';
      for (let i = a; i < b; i++) text += `${copyLine(arrays.map((col) => col[i]!))}\n`;
      const data = new CopyData(Buffer.from(text, 'utf8'));
      await trx.executeQuery(CompiledQuery.raw(`copy ${quoted} from ${platform.engine === 'postgres' ? 'stdin' : `'/dev/blob'`}`, [data]));
    }
  };
  const copyBare = await time('copy', false, copy);
  const copySame = await time('same', true, copy);
  return { unnestBare, copyBare, copySame };
}

async function benchEngine(label: string, options: PlatformOptions, rows: number, log: (line: string) => void): Promise<Goal[]> {
  const platform = await openPlatform(options);
  const tenant = `bench_seeds_${process.pid}_${rows}`;
  const scope = { tenant, package: 'seeds' };
  try {
    const set = seedStack(rows);
    const seedsOf = set.artifacts.filter((a) => a.type === 'seed').length;
    let t0 = performance.now();
    await stageDrafts(platform, scope, set);
    const staged = performance.now() - t0;
    const first = await withPeak(() => publishPackage(platform, scope));
    if (first.value.outcome !== 'published') throw new Error(`the seed bench did not publish: ${first.value.outcome}`);
    const a = first.value.seedApplied;
    log(
      `[${label}] ${rows.toLocaleString('en-US')} rows in ${seedsOf - 1} seed artifacts (+50 lookup targets): stage ${ms(staged)}; first publish ${ms(first.ms)} (${a.inserted} inserted, ${a.errors.length} errors, ${Math.round((a.inserted / first.ms) * 1000)} rows/s); RSS ${Math.round(first.before / MB)} MB before, peak ${Math.round(first.peak / MB)} MB (+${Math.round((first.peak - first.before) / MB)} MB); JS heap peak +${Math.round(first.heap / MB)} MB`,
    );
    // The baseline right after the first publish, in the same conditions: a shared machine's speed
    // drifts over the minutes the rest of the run takes (the raw insert's own time varied ×1.2 between runs).
    const raw = await rawInserts(platform, first.value.schema, 'seed_row');
    log(
      `[${label}] the same ${rows.toLocaleString('en-US')} rows, raw: INSERT … SELECT unnest(…) into a bare copy of the table ${ms(raw.unnestBare)}; COPY into a bare copy ${ms(raw.copyBare)}; COPY into a copy with the same primary key, indexes and foreign key ${ms(raw.copySame)}`,
    );
    t0 = performance.now();
    await stageDrafts(platform, scope, set);
    const restaged = performance.now() - t0;
    const replay = await withPeak(() => publishPackage(platform, scope));
    if (replay.value.outcome !== 'published') throw new Error(`the seed bench replay did not publish: ${replay.value.outcome}`);
    const r = replay.value.seedApplied;
    log(
      `[${label}] replay (stage again ${ms(restaged)}): ${ms(replay.ms)} (${r.updated} updated, ${r.inserted} inserted, ${r.errors.length} errors); RSS ${Math.round(replay.before / MB)} MB before, peak ${Math.round(replay.peak / MB)} MB (+${Math.round((replay.peak - replay.before) / MB)} MB); JS heap peak +${Math.round(replay.heap / MB)} MB`,
    );
    // What a publish holds (live memory, full GCs while it runs): a replay once more, not timed.
    await stageDrafts(platform, scope, set);
    const held = await withHeld(() => publishPackage(platform, scope));
    if (held.value.outcome !== 'published') throw new Error(`the seed bench's held-memory replay did not publish: ${held.value.outcome}`);
    log(
      `[${label}] live memory a replay holds (full GC every 100 ms, heap + ArrayBuffers, not timed): ${(held.before / MB).toFixed(1)} MB before (the bench's own input and results included), peak ${(held.peak / MB).toFixed(1)} MB: +${(held.held / MB).toFixed(1)} MB, ${Math.round(held.held / rows)} B/row`,
    );
    // The seed writer alone (applySeeds), without the publish around it (reading the drafts, the
    // gate over every record, the DDL): the same seeds into a tenant whose tables a publish made.
    const writer = `${tenant}_w`;
    await stageDrafts(
      platform,
      { tenant: writer, package: 'seeds' },
      { ...set, artifacts: set.artifacts.map((a) => (a.type === 'seed' ? { ...a, body: { ...(a.body as object), records: [] } } : a)) },
    );
    const empty = await publishPackage(platform, { tenant: writer, package: 'seeds' });
    if (empty.outcome !== 'published') throw new Error(`the seed bench's writer tenant did not publish: ${empty.outcome}`);
    const graph = first.value.graph;
    // A large seed's records are in the store (the graph holds a handle): read from the tenant's rows,
    // as the publish reads them (on PostgreSQL on a connection of their own, beside the writer's).
    const records = platform.engine === 'postgres' ? pooledSeedRecords(platform.db, tenant) : tenantSeedRecords(tenant);
    const writing = await withPeak(() => applySeeds(platform, { schema: empty.schema, graph, now: new Date(), records }));
    const direct = writing.value;
    const writerMs = writing.ms;
    t0 = performance.now();
    const again = await applySeeds(platform, { schema: empty.schema, graph, now: new Date(), records });
    const writerReplayMs = performance.now() - t0;
    await dropTenant(platform, writer);
    log(
      `[${label}] the seed writer alone (applySeeds into tables a publish made: no draft reading, no gate, no DDL): first ${ms(writerMs)} (${direct.inserted} inserted; RSS +${Math.round((writing.peak - writing.before) / MB)} MB over the ${Math.round(writing.before / MB)} MB holding the graph), replay ${ms(writerReplayMs)} (${again.updated} updated)`,
    );
    const ratio = (x: number, base: number) => `×${(x / base).toFixed(2)}`;
    log(
      `[${label}] the seed writer alone: first ${ratio(writerMs, raw.unnestBare)} the raw INSERT … unnest (bare), ${ratio(writerMs, raw.copyBare)} raw COPY (bare), ${ratio(writerMs, raw.copySame)} raw COPY (same table); replay ${ratio(writerReplayMs, raw.unnestBare)}, ${ratio(writerReplayMs, raw.copyBare)}, ${ratio(writerReplayMs, raw.copySame)}`,
    );
    log(
      `[${label}] first publish ${ratio(first.ms, raw.unnestBare)} the raw INSERT … unnest (bare), ${ratio(first.ms, raw.copyBare)} raw COPY (bare), ${ratio(first.ms, raw.copySame)} raw COPY (same table); replay ${ratio(replay.ms, raw.unnestBare)}, ${ratio(replay.ms, raw.copyBare)}, ${ratio(replay.ms, raw.copySame)}; peak RSS over the staged process ${Math.round((first.peak - first.before) / rows)} B/row (first), ${Math.round((replay.peak - replay.before) / rows)} B/row (replay); JS heap peak ${Math.round(first.heap / rows)} B/row (first), ${Math.round(replay.heap / rows)} B/row (replay); process peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
    );
    const n = `${rows / 1_000_000}M`;
    return [
      {
        name: `[${label}] ${n}-row seed first publish against a raw INSERT … SELECT unnest(…) of the same rows`,
        value: first.ms / raw.unnestBare,
        limit: 2,
        unit: '×',
      },
      {
        name: `[${label}] ${n}-row seed replay against a raw INSERT … SELECT unnest(…) of the same rows`,
        value: replay.ms / raw.unnestBare,
        limit: 3,
        unit: '×',
      },
    ];
  } finally {
    await dropTenant(platform, tenant).catch(() => {});
    await platform.close();
  }
}

/** Runs the seeds bench for each row count on PGlite (a folder under the system's temp dir) and PostgreSQL when DATABASE_URL is set. */
export async function benchSeeds(log: (line: string) => void): Promise<Goal[]> {
  const goals: Goal[] = [];
  for (const rows of ROWS) {
    if (ENGINES.has('pglite')) {
      const dir = await mkdtemp(join(tmpdir(), 'bvl-bench-seeds-'));
      try {
        goals.push(...(await benchEngine('PGlite', { dataDir: dir }, rows, log)));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    const url = process.env.DATABASE_URL;
    if (ENGINES.has('postgres') && url) goals.push(...(await benchEngine('PostgreSQL', { databaseUrl: url }, rows, log)));
    else if (ENGINES.has('postgres')) log('[PostgreSQL] skipped: DATABASE_URL is not set');
  }
  return goals;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { goalLine } = await import('./measure.ts');
  for (const g of await benchSeeds((line) => console.log(line))) console.log(goalLine(g));
}
