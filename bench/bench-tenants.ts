// The service at size (issue 21): verify and publish latency of one package, first in a database that
// holds only the bench's few tenants, then with 100 tenants × 10 published packages beside it (BVL_BENCH_TENANTS,
// BVL_BENCH_PACKAGES). Flat means the second figures stay within 1.5× of the first. In-process on the
// store (embedded PGlite, or PostgreSQL when DATABASE_URL is set): what the HTTP API runs per request.
// Standalone: `npx tsx bench/bench-tenants.ts`.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ArtifactSet, collectStack, readSource } from '@bvl/metadata';
import { dropTenant, openPlatform, type Platform, stageDrafts } from '@bvl/platform';
import { generateStack } from '@bvl/test-support';
import { publishBuild, verifyBuild } from '@bvl/verify-build';
import { type Goal, ms } from './measure.ts';

const EXAMPLE = join(import.meta.dirname, '../examples/expense-tracker');
const TENANTS = Number(process.env.BVL_BENCH_TENANTS ?? 100);
const PACKAGES = Number(process.env.BVL_BENCH_PACKAGES ?? 10);
/** Verifies and publishes timed per figure. */
const VERIFY_RUNS = 15;
const PUBLISH_RUNS = 5;

type Log = (line: string) => void;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

interface Latency {
  readonly verify: number;
  readonly publish: number;
}

/**
 * The figures beside whatever the database holds: publishBuild of the expense-tracker app into
 * PUBLISH_RUNS fresh tenants (promote, DDL, seeds, probes; artifact names are unique per tenant),
 * then verifyBuild of the first with the agent's drafts staged over it (3 errors); each the median.
 */
async function latency(platform: Platform, tenant: (what: string) => string, what: string, app: ArtifactSet, drafts: ArtifactSet): Promise<Latency> {
  const publishes: number[] = [];
  const tenants: string[] = [];
  for (let i = 0; i < PUBLISH_RUNS; i++) {
    const scope = { tenant: tenant(`${what}${i}`), package: 'expense' };
    tenants.push(scope.tenant);
    const t0 = performance.now();
    const r = await publishBuild(platform, { ...scope, prepare: (pinned) => stageDrafts(pinned, scope, app).then(() => {}) });
    publishes.push(performance.now() - t0);
    if (!r.published)
      throw new Error(`the expense-tracker did not publish for ${scope.tenant}: ${r.outcome} ${r.error ?? JSON.stringify(r.issues.slice(0, 2))}`);
  }
  const scope = { tenant: tenants[0]!, package: 'expense' };
  await stageDrafts(platform, scope, drafts);
  const verifies: number[] = [];
  for (let i = 0; i < VERIFY_RUNS + 2; i++) {
    const t0 = performance.now();
    await verifyBuild(platform, scope);
    if (i >= 2) verifies.push(performance.now() - t0);
  }
  return { verify: median(verifies), publish: median(publishes) };
}

/** The figures at 1 tenant and at TENANTS × PACKAGES, and the goals that say whether they are flat. */
export async function benchTenants(log: Log): Promise<Goal[]> {
  const url = process.env.DATABASE_URL;
  const engine = url ? 'PostgreSQL' : 'PGlite';
  const platform = await openPlatform(url ? { databaseUrl: url } : { dataDir: 'memory' });
  const run = randomBytes(3).toString('hex');
  const made: string[] = [];
  const tenant = (what: string) => {
    const t = `bench_${what}_${run}`;
    made.push(t);
    return t;
  };
  try {
    const app = await readSource(join(EXAMPLE, 'app'), { draft: true });
    const drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
    await latency(platform, tenant, 'warm', app, drafts); // JIT and caches warm: the first figure is not a cold start
    const alone = await latency(platform, tenant, 'first', app, drafts);
    log(
      `[${engine}] alone (the tenants it publishes into, and a warm-up's): verifyBuild p50 ${ms(alone.verify)}, publishBuild (a new tenant's first package) p50 ${ms(alone.publish)}`,
    );

    // The crowd: TENANTS tenants with PACKAGES small published packages each (2 objects, views,
    // datasets, dashboards and seeds: tables, rows and metadata rows in every tenant).
    // Artifact names are unique within a tenant: each package's are renamed.
    const generated = JSON.stringify(generateStack(14));
    const small = Array.from({ length: PACKAGES }, (_, p) => collectStack(JSON.parse(generated.replaceAll('gen_', `p${p}_`)), { draft: true }));
    const t0 = performance.now();
    for (let t = 0; t < TENANTS; t++) {
      const name = tenant(`t${t}`);
      for (let p = 0; p < PACKAGES; p++) {
        const pkg = { tenant: name, package: `pkg_${p}` };
        const r = await publishBuild(platform, { ...pkg, prepare: (pinned) => stageDrafts(pinned, pkg, small[p]!).then(() => {}) });
        if (!r.published) throw new Error(`filling: ${name}/pkg_${p} did not publish: ${r.outcome} ${r.error ?? ''}`);
      }
    }
    log(`[${engine}] filled ${TENANTS} tenants × ${PACKAGES} packages (${small[0]?.artifacts.length} artifacts each) in ${ms(performance.now() - t0)}`);
    const crowded = await latency(platform, tenant, 'last', app, drafts);
    const v = crowded.verify / alone.verify;
    const p = crowded.publish / alone.publish;
    log(
      `[${engine}] ${TENANTS} × ${PACKAGES} beside it: verifyBuild p50 ${ms(crowded.verify)} (×${v.toFixed(2)}), publishBuild p50 ${ms(crowded.publish)} (×${p.toFixed(2)})`,
    );
    return [
      { name: `[${engine}] verifyBuild latency with ${TENANTS} tenants × ${PACKAGES} packages ÷ alone (issue 21)`, value: v, limit: 1.5, unit: '×' },
      { name: `[${engine}] publishBuild latency with ${TENANTS} tenants × ${PACKAGES} packages ÷ alone (issue 21)`, value: p, limit: 1.5, unit: '×' },
    ];
  } finally {
    for (const t of made) await dropTenant(platform, t).catch(() => {});
    await platform.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { goalLine } = await import('./measure.ts');
  for (const g of await benchTenants((l) => console.log(l))) console.log(goalLine(g));
}
