// `npm run oracle:try -- <version>`: installs @objectstack/spec and lint at <version> in a temporary
// folder, runs the oracle with them and prints what changes against the reviewed file: new
// disagreements (to fix or list) and listed ones that no longer occur (to drop).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { review } from './compare.ts';
import { loadObjectStack, PINNED } from './objectstack.ts';
import { readExpected, runOracle } from './run-oracle.ts';

const version = process.argv[2];
if (!version || !/^[\w.^~<>=-]+$/.test(version)) {
  console.error('usage: npm run oracle:try -- <version>   (an @objectstack/spec version, e.g. 17.5.0 or latest)');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'bvl-oracle-try-'));
try {
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', `@objectstack/spec@${version}`, `@objectstack/lint@${version}`], {
    cwd: dir,
    stdio: 'inherit',
  });
  const os = await loadObjectStack(dir);
  if (typeof os === 'string') throw new Error(os);
  const run = runOracle(os);
  const { unlisted, stale } = review(run.disagreements, readExpected());
  const groups = new Map<string, string[]>();
  for (const d of unlisted)
    for (const s of d.signatures)
      groups.set(`${d.oracle} ${d.only}-only ${s}`, [...(groups.get(`${d.oracle} ${d.only}-only ${s}`) ?? []), `${d.stack} ${d.key}`]);
  console.log(`@objectstack/spec ${os.version} + lint ${os.lintVersion} against the file reviewed for ${PINNED}: ${run.stacks.length} stacks`);
  console.log(JSON.stringify(run.tally));
  console.log(`\nnew disagreements (${groups.size} signatures):`);
  for (const [k, where] of [...groups].sort()) console.log(`  ${k}  (${where.length}: ${where.slice(0, 3).join('; ')}${where.length > 3 ? '; …' : ''})`);
  console.log(`\nlisted disagreements that no longer occur (${stale.length}):`);
  for (const e of stale) console.log(`  ${e.oracle} ${e.only}-only ${e.signature}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
