// Publish at size (issue 21): a generated package of 500, 2,000 and 5,000 objects (about 7 artifacts
// each: 3 views, a dataset, a dashboard and a 5-record seed per object) published whole into a new
// tenant, on PGlite and on PostgreSQL (DATABASE_URL, at the server's settings — the test of the
// issue is the default max_locks_per_transaction, 64). Each publish runs in its own process, so its
// peak memory is its own. Prints figures; asserts nothing (the machine is shared and noisy).
//   BVL_BENCH_PUBLISH_SIZES=500,2000   other sizes
// Then a republish changing a column's type in every table of the package (BVL_BENCH_REPUBLISH_SIZES,
// default 250,2000): its time against the first publish, peak memory, and the locks of its switch.
import { spawnSync } from 'node:child_process';
import { ms } from './measure.ts';

const SIZES = (process.env.BVL_BENCH_PUBLISH_SIZES ?? '500,2000,5000').split(',').filter(Boolean).map(Number);

interface Line {
  objects: number;
  artifacts: number;
  outcome: string;
  error?: string;
  steps?: number;
  rows?: number;
  batches: number;
  ms: number;
  rssBeforeMb: number;
  peakRssMb: number;
  maxRssMb: number;
  maxLocksPerTransaction?: string;
}

/** The republish line of a child run with BVL_REPUBLISH=retype. */
interface RepublishLine {
  batches?: number;
  objects: number;
  outcome: string;
  codes?: string[];
  message?: string;
  error?: string;
  steps?: number;
  ms: number;
  firstMs: number;
  rssBeforeMb: number;
  peakRssMb: number;
  locksHeldAtCommit?: number;
  locksCounted?: number;
  lockTable: number;
}

const REPUBLISH_SIZES = (process.env.BVL_BENCH_REPUBLISH_SIZES ?? '250,2000').split(',').filter(Boolean).map(Number);

function spawnChild(objects: number, databaseUrl: string | undefined, extra: NodeJS.ProcessEnv = {}): { lines: string[] } | string {
  const env: NodeJS.ProcessEnv = { ...process.env, BVL_OBJECTS: String(objects), ...extra };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const r = spawnSync(process.execPath, ['--import', 'tsx', new URL('./publish-size-child.ts', import.meta.url).pathname], {
    env,
    encoding: 'utf8',
    maxBuffer: 16 * 2 ** 20,
  });
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('{'));
  if (r.status !== 0 || lines.length === 0) return `exited ${r.status}: ${r.stderr.slice(-400)}`;
  return { lines };
}

function run(objects: number, databaseUrl: string | undefined): Line | string {
  const env: NodeJS.ProcessEnv = { ...process.env, BVL_OBJECTS: String(objects) };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const r = spawnSync(process.execPath, ['--import', 'tsx', new URL('./publish-size-child.ts', import.meta.url).pathname], {
    env,
    encoding: 'utf8',
    maxBuffer: 16 * 2 ** 20,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (r.status !== 0 || !line) return `exited ${r.status}: ${r.stderr.slice(-400)}`;
  return JSON.parse(line) as Line;
}

export async function benchPublishSize(log: (line: string) => void): Promise<void> {
  const engines: Array<[string, string | undefined]> = [['PGlite', undefined]];
  if (process.env.DATABASE_URL) engines.push(['PostgreSQL', process.env.DATABASE_URL]);
  else log('[PostgreSQL] skipped: DATABASE_URL is not set');
  for (const [label, url] of engines) {
    for (const objects of SIZES) {
      const r = run(objects, url);
      if (typeof r === 'string') {
        log(`[${label}] ${objects} objects: the bench child failed: ${r}`);
        continue;
      }
      const settings = r.maxLocksPerTransaction ? `, max_locks_per_transaction ${r.maxLocksPerTransaction}` : '';
      const what =
        r.outcome === 'published'
          ? `published in ${ms(r.ms)} (${r.steps} DDL steps, ${r.batches > 0 ? `built ahead in ${r.batches} transactions, then switched` : 'one transaction'}; ${r.rows} seed rows)`
          : `${r.outcome} after ${ms(r.ms)}: ${r.error ?? ''}`;
      log(
        `[${label}] ${objects} objects (${r.artifacts} artifacts${settings}): ${what}; peak RSS during the publish ${r.peakRssMb.toFixed(0)} MB (${r.rssBeforeMb.toFixed(0)} MB before it, process max ${r.maxRssMb.toFixed(0)} MB)`,
      );
    }
    // A republish changing a column's type in every table: a large one builds the new columns
    // ahead as shadow columns (trigger-kept, backfilled) and its switch only swaps them in (a few
    // locks a table); it is refused before any DDL only when even that would not fit.
    for (const objects of REPUBLISH_SIZES) {
      const out = spawnChild(objects, url, { BVL_REPUBLISH: 'retype' });
      const line =
        typeof out === 'string' ? undefined : out.lines.map((l) => JSON.parse(l) as RepublishLine & { republish?: boolean }).find((l) => l.republish);
      if (!line) {
        log(`[${label}] republish of ${objects} objects: the bench child failed: ${typeof out === 'string' ? out : 'no republish line'}`);
        continue;
      }
      const locks =
        line.locksHeldAtCommit !== undefined
          ? `its switch held ${line.locksHeldAtCommit} locks at commit`
          : line.locksCounted !== undefined
            ? `its switch counted at ${line.locksCounted} locks`
            : 'no lock figure';
      const what =
        line.outcome === 'published'
          ? `published in ${ms(line.ms)} (${line.steps} DDL steps${line.batches ? `, shadow columns built ahead in ${line.batches} transactions, then swapped in` : ', one transaction'})`
          : line.outcome === 'refused'
            ? `refused (${(line.codes ?? []).join(', ')}) after ${ms(line.ms)}, before any DDL`
            : `${line.outcome} after ${ms(line.ms)}: ${line.error ?? ''}`;
      log(
        `[${label}] republish of ${objects} objects changing a column type in every table: ${what}; ${locks}, lock table ${line.lockTable}; ×${(line.ms / line.firstMs).toFixed(2)} the first publish (${ms(line.firstMs)}); peak RSS ${line.peakRssMb.toFixed(0)} MB (${line.rssBeforeMb.toFixed(0)} MB before it)`,
      );
    }
  }
}
