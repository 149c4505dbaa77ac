// The runtime (L3) bench: publish + probe of app-showcase on PGlite (and PostgreSQL when
// DATABASE_URL is set), probe overhead per widget against the same SQL run directly, and a
// 100k-row generated seed against a raw INSERT … SELECT unnest(…) of the same rows. Prints
// figures and the goals they meet or miss; asserts nothing (the machine is shared and noisy).

import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { type ArtifactSet, buildGraph, collectStack, readSource } from '@bvl/metadata';
import {
  createProbeEngine,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  dropTenant,
  openPlatform,
  type Platform,
  type PlatformOptions,
  planDatasetQuery,
  publishPackage,
  readOnlyQuery,
  stageDrafts,
} from '@bvl/platform';
import { planProbes, runProbes } from '@bvl/runtime-probes';
import { corpusFile, fixtureFile, locateCorpora } from '@bvl/test-support';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { Goal } from './measure.ts';

// app-showcase when the shared corpora are present, else the repository's field-service fixture.
const [SHOWCASE, SHOWCASE_LABEL] = locateCorpora().present ? [corpusFile('app-showcase'), 'app-showcase'] : [fixtureFile('field-service'), 'field-service'];
/** Timed repetitions per widget query (median taken). */
const WIDGET_RUNS = 8;
/** Rows in the generated seed. */
const BIG_SEED_ROWS = 100_000;

const ms = (t0: number) => performance.now() - t0;
const fmt = (x: number) => `${x.toFixed(1)} ms`;
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** One engine's figures: showcase publish + probe, per-widget probe overhead, the 100k seed. */
async function benchEngine(label: string, options: PlatformOptions, log: (line: string) => void): Promise<Goal[]> {
  const t0 = performance.now();
  const platform = await openPlatform(options);
  log(`[${label}] open + migrate: ${fmt(ms(t0))}`);
  const made: string[] = [];
  const tenant = () => {
    const t = `bench_${randomBytes(4).toString('hex')}`;
    made.push(t);
    return t;
  };
  // BVL_BENCH_RUNTIME=probes or =seeds runs one half.
  const parts = new Set((process.env.BVL_BENCH_RUNTIME ?? 'probes,seeds').split(','));
  try {
    const goals: Goal[] = [];
    if (parts.has('probes'))
      goals.push({
        name: `[${label}] a probe against the same SQL run directly (median over widgets)`,
        value: await showcase(label, platform, tenant(), log),
        limit: 1.5,
        unit: '×',
      });
    if (parts.has('seeds'))
      goals.push({
        name: `[${label}] first publish of ${BIG_SEED_ROWS / 1000}k seed rows against a raw INSERT … SELECT unnest(…)`,
        value: await bigSeed(label, platform, tenant, log),
        limit: 3,
        unit: '×',
      });
    return goals;
  } finally {
    for (const t of made) await dropTenant(platform, t).catch(() => {});
    await platform.close();
  }
}

/** Returns the median over widgets of probe time / direct time. */
async function showcase(label: string, platform: Platform, tenant: string, log: (line: string) => void): Promise<number> {
  const set = await readSource(SHOWCASE);
  const scope = { tenant, package: 'showcase' };
  let t0 = performance.now();
  await stageDrafts(platform, scope, set);
  const staged = ms(t0);
  t0 = performance.now();
  const result = await publishPackage(platform, scope);
  const published = ms(t0);
  if (result.outcome !== 'published') throw new Error(`${SHOWCASE_LABEL} did not publish: ${result.outcome}`);
  log(
    `[${label}] ${SHOWCASE_LABEL}: stage ${set.artifacts.length} artifacts ${fmt(staged)}, publish (promote + ${result.ddlSteps} DDL steps + ${result.seedApplied.inserted} seed rows) ${fmt(published)}`,
  );
  const engine = createProbeEngine(platform, { tenant, graph: result.graph });
  const runs: number[] = [];
  let report: Awaited<ReturnType<typeof runProbes>> | undefined;
  for (let i = 0; i < 5; i++) {
    t0 = performance.now();
    report = await runProbes({ engine, graph: result.graph, seedApplied: result.seedApplied });
    runs.push(ms(t0));
  }
  const c = report!.checked;
  log(
    `[${label}] ${SHOWCASE_LABEL} probes: ${fmt(median(runs))} median of 5 (${c.objects} counts, ${c.seeds} seeds, ${c.views} view reads, ${c.widgets} widget queries; ${report!.issues.length} issues)`,
  );

  // Probe overhead per widget: a probe (planning its SQL, running it read-only with a timeout) vs
  // the same compiled statement on the platform's own pool; beside it, the read-only statement alone
  // (the compiled SQL through readOnlyQuery, without planning).
  const plan = planProbes(result.graph, { env: 'dev' });
  const ratios: number[] = [];
  const statementRatios: number[] = [];
  let probeTotal = 0;
  let directTotal = 0;
  for (const w of plan.widgets) {
    const compiled = planDatasetQuery({ tenant, graph: result.graph }, w.dataset, w.selection);
    if (!compiled.ok) continue;
    const query = CompiledQuery.raw(compiled.compiled.sql, compiled.compiled.params);
    const probe: number[] = [];
    const direct: number[] = [];
    const statement: number[] = [];
    const timeProbe = async () => {
      const t = performance.now();
      await engine.runDataset(w.dataset, w.selection);
      probe.push(ms(t));
    };
    const timeDirect = async () => {
      const t = performance.now();
      await platform.db.executeQuery(query);
      direct.push(ms(t));
    };
    const timeStatement = async () => {
      const t = performance.now();
      await readOnlyQuery(platform, DEFAULT_STATEMENT_TIMEOUT_MS, query);
      statement.push(ms(t));
    };
    // Alternating which goes first, so neither always finds the other's warm cache; one untimed warm-up each.
    await engine.runDataset(w.dataset, w.selection);
    await platform.db.executeQuery(query);
    for (let i = 0; i < WIDGET_RUNS; i++) {
      if (i % 2 === 0) {
        await timeProbe();
        await timeDirect();
        await timeStatement();
      } else {
        await timeStatement();
        await timeDirect();
        await timeProbe();
      }
    }
    probeTotal += median(probe);
    directTotal += median(direct);
    ratios.push(median(probe) / median(direct));
    statementRatios.push(median(statement) / median(direct));
  }
  log(
    `[${label}] per widget (${ratios.length} widgets, median of ${WIDGET_RUNS}): probe ${fmt(probeTotal / ratios.length)} vs direct SQL ${fmt(directTotal / ratios.length)}; ratio median ×${median(ratios).toFixed(2)}, max ×${Math.max(...ratios).toFixed(2)}; the read-only statement alone (no planning) ×${median(statementRatios).toFixed(2)}`,
  );
  return median(ratios);
}

/** A stack with one lookup target (50 rows) and one object seeded with `rows` generated records. */
function bigStack(rows: number): ArtifactSet {
  const regions = Array.from({ length: 50 }, (_, i) => ({ name: `Region ${i}` }));
  const records = Array.from({ length: rows }, (_, i) => ({
    code: `R-${i}`,
    title: `Row ${i}`,
    amount: (i % 997) * 1.25,
    status: ['open', 'won', 'lost'][i % 3],
    due: { dialect: 'cel', source: `daysAgo(${i % 365})` },
    done: i % 2 === 0,
    region: `Region ${i % 50}`,
  }));
  return collectStack(
    {
      objects: [
        { name: 'big_region', fields: { name: { type: 'text' } } },
        {
          name: 'big_row',
          fields: {
            code: { type: 'text' },
            title: { type: 'text' },
            amount: { type: 'currency' },
            status: { type: 'select', options: ['open', 'won', 'lost'] },
            due: { type: 'date' },
            done: { type: 'boolean' },
            region: { type: 'lookup', reference: 'big_region' },
          },
        },
      ],
      datasets: [
        {
          name: 'big_metrics',
          object: 'big_row',
          dimensions: [{ name: 'status', field: 'status' }],
          measures: [
            { name: 'n', aggregate: 'count' },
            { name: 'total', aggregate: 'sum', field: 'amount' },
          ],
        },
      ],
      dashboards: [
        { name: 'big', label: 'Big', widgets: [{ id: 'by_status', type: 'bar', dataset: 'big_metrics', dimensions: ['status'], values: ['n', 'total'] }] },
      ],
      data: [
        { object: 'big_region', records: regions },
        { object: 'big_row', externalId: 'code', records },
      ],
    },
    { draft: true },
  );
}

/** First publishes timed per engine (each into a fresh tenant), alternating with the raw insert. */
const FIRST_PUBLISHES = 3;

/**
 * Returns first publish time / raw unnest insert time of the same rows (medians): the machine is
 * shared, so three first publishes, each followed by one raw insert of its rows, are compared.
 */
async function bigSeed(label: string, platform: Platform, tenant: () => string, log: (line: string) => void): Promise<number> {
  const set = bigStack(BIG_SEED_ROWS);
  const publishes: number[] = [];
  const raws: number[] = [];
  let scope = { tenant: '', package: 'big' };
  let schema = '';
  for (let i = 0; i < FIRST_PUBLISHES; i++) {
    const s = { tenant: tenant(), package: 'big' };
    let t0 = performance.now();
    await stageDrafts(platform, s, set);
    const staged = ms(t0);
    t0 = performance.now();
    const first = await publishPackage(platform, s);
    const took = ms(t0);
    if (first.outcome !== 'published') throw new Error(`big seed did not publish: ${first.outcome}`);
    publishes.push(took);
    const raw = await rawInsert(platform.db as unknown as Kysely<Record<string, never>>, first.schema, 'big_row', i);
    raws.push(raw.ms);
    log(
      `[${label}] ${BIG_SEED_ROWS} generated seed rows, run ${i + 1}: stage ${fmt(staged)}; first publish ${fmt(took)} (${first.seedApplied.inserted} inserted, ${first.seedApplied.errors.length} errors; ${Math.round((first.seedApplied.inserted / took) * 1000)} rows/s); the same ${raw.rows} rows by one raw INSERT … SELECT unnest(…) ${fmt(raw.ms)}`,
    );
    if (i === 0) {
      scope = s;
      schema = first.schema;
    }
  }
  const ratio = median(publishes) / median(raws);
  log(`[${label}] first publish ${fmt(median(publishes))} median of ${FIRST_PUBLISHES} vs raw insert ${fmt(median(raws))}: ×${ratio.toFixed(2)}`);
  await stageDrafts(platform, scope, set);
  let t0 = performance.now();
  const again = await publishPackage(platform, scope);
  const replay = ms(t0);
  if (again.outcome === 'published')
    log(`[${label}] replay (upsert by externalId): ${fmt(replay)} (${again.seedApplied.updated} updated, ${again.seedApplied.inserted} inserted)`);
  const graph = buildGraph({ artifacts: [], problems: [] }, set).graph;
  t0 = performance.now();
  const report = await runProbes({ engine: createProbeEngine(platform, { tenant: scope.tenant, graph }), graph });
  log(`[${label}] probes on the 100k-row object in ${schema}: ${fmt(ms(t0))} (${report.issues.length} issues)`);
  return ratio;
}

/**
 * The baseline a hand-written loader reaches: the published table's rows (every column, as text)
 * inserted into an empty copy of the table by one INSERT … SELECT over unnest of one text array per
 * column, cast to the column types.
 */
async function rawInsert(db: Kysely<Record<string, never>>, schema: string, table: string, run: number): Promise<{ rows: number; ms: number }> {
  const columns = (
    await sql<{ name: string; type: string }>`
      select a.attname as name, format_type(a.atttypid, a.atttypmod) as type from pg_attribute a
      where a.attrelid = ${`"${schema}"."${table}"`}::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum`.execute(db)
  ).rows;
  const source = sql.id(schema, table);
  const rows = (
    await sql<Record<string, string | null>>`select ${sql.join(columns.map((c) => sql`${sql.ref(c.name)}::text as ${sql.id(c.name)}`))} from ${source}`.execute(
      db,
    )
  ).rows;
  const arrays = columns.map((c) => rows.map((r) => r[c.name] ?? null));
  const copy = sql.id(schema, `${table}_raw_${run}`);
  await sql`create table ${copy} (like ${source} including defaults)`.execute(db);
  const t0 = performance.now();
  await sql`insert into ${copy} (${sql.join(columns.map((c) => sql.id(c.name)))})
    select ${sql.join(columns.map((c, j) => sql`${sql.ref(`u.c${j}`)}::${sql.raw(c.type)}`))}
    from unnest(${sql.join(arrays.map((a) => sql`${a}::text[]`))}) as u(${sql.join(columns.map((_, j) => sql.id(`c${j}`)))})`.execute(db);
  const took = performance.now() - t0;
  await sql`drop table ${copy}`.execute(db);
  return { rows: rows.length, ms: took };
}

/** Runs the runtime bench on PGlite, and on PostgreSQL when DATABASE_URL is set; returns the goals' figures. */
export async function benchRuntime(log: (line: string) => void): Promise<Goal[]> {
  const goals = await benchEngine('PGlite', { dataDir: 'memory' }, log);
  const url = process.env.DATABASE_URL;
  if (url) goals.push(...(await benchEngine('PostgreSQL', { databaseUrl: url }, log)));
  else log('[PostgreSQL] skipped: DATABASE_URL is not set (the probe and seed goals are PostgreSQL figures)');
  return goals;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchRuntime((line) => console.log(line));
}
