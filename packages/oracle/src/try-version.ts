// `npm run oracle:try -- <version>`: installs @objectstack/spec and lint (and, with DATABASE_URL,
// the engine: objectql, driver-sql, service-analytics, metadata-protocol) at <version> in a temporary
// folder, runs the oracle with them and prints what changes against the reviewed file: new
// disagreements (to fix or list) and listed ones that no longer occur (to drop), per authority.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPlatform } from '@bvl/platform';
import { type Disagreement, type Expected, review } from './compare.ts';
import { loadObjectStack, PINNED } from './objectstack.ts';
import { ENGINE_PACKAGES, loadObjectStackEngine } from './objectstack-engine.ts';
import { runEngineOracle } from './run-engine.ts';
import { readExpected, runOracle } from './run-oracle.ts';

const version = process.argv[2];
if (!version || !/^[\w.^~<>=-]+$/.test(version)) {
  console.error('usage: npm run oracle:try -- <version>   (an @objectstack/spec version, e.g. 17.5.0 or latest)');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'bvl-oracle-try-'));
try {
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  const engineToo = Boolean(process.env.DATABASE_URL);
  const packages = ['@objectstack/spec', '@objectstack/lint', ...(engineToo ? ENGINE_PACKAGES : [])];
  // driver-sql's PostgreSQL client is a peer dependency it leaves to the host: installed beside it.
  const peers = engineToo ? ['pg@8'] : [];
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...packages.map((p) => `${p}@${version}`), ...peers], {
    cwd: dir,
    stdio: 'inherit',
  });
  const os = await loadObjectStack(dir);
  if (typeof os === 'string') throw new Error(os);
  const run = runOracle(os);
  const expected = readExpected();
  console.log(`@objectstack/spec ${os.version} + lint ${os.lintVersion} against the file reviewed for ${PINNED}: ${run.stacks.length} stacks`);
  console.log(JSON.stringify(run.tally));
  report(
    run.disagreements,
    expected.filter((e) => e.oracle !== 'engine'),
  );
  if (!engineToo) console.log('\nengine: not tried (set DATABASE_URL to a PostgreSQL server to try the engine too)');
  else {
    const engine = await loadObjectStackEngine(process.env.DATABASE_URL, dir);
    if (typeof engine === 'string') throw new Error(engine);
    const platform = await openPlatform({ databaseUrl: process.env.DATABASE_URL });
    try {
      const e = await runEngineOracle(engine, platform);
      console.log(`\nengine ${engine.version} against the file reviewed for ${PINNED}: ${JSON.stringify(e.tally)}`);
      report(
        e.disagreements,
        expected.filter((x) => x.oracle === 'engine'),
      );
    } finally {
      await platform.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** New disagreements grouped by signature, and listed ones that no longer occur. */
function report(disagreements: readonly Disagreement[], expected: readonly Expected[]): void {
  const { unlisted, stale } = review(disagreements, expected);
  const groups = new Map<string, string[]>();
  for (const d of unlisted)
    for (const s of d.signatures)
      groups.set(`${d.oracle} ${d.only}-only ${s}`, [...(groups.get(`${d.oracle} ${d.only}-only ${s}`) ?? []), `${d.stack} ${d.key}`]);
  console.log(`\nnew disagreements (${groups.size} signatures):`);
  for (const [k, where] of [...groups].sort()) console.log(`  ${k}  (${where.length}: ${where.slice(0, 3).join('; ')}${where.length > 3 ? '; …' : ''})`);
  console.log(`\nlisted disagreements that no longer occur (${stale.length}):`);
  for (const e of stale) console.log(`  ${e.oracle} ${e.only}-only ${e.signature}`);
}
