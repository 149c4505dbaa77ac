// `npm run oracle:summary -w @bvl/oracle`: every disagreement signature with its count and one example, for reviewing expected-disagreements.json.
import { review } from './compare.ts';
import { loadObjectStack } from './objectstack.ts';
import { readExpected, runOracle } from './run-oracle.ts';

const os = await loadObjectStack();
if (typeof os === 'string') {
  console.error(os);
  process.exit(2);
}
const started = Date.now();
const run = runOracle(os);
const groups = new Map<string, { n: number; stacks: Set<string>; example: string }>();
for (const d of run.disagreements)
  for (const s of d.signatures) {
    const k = `${d.oracle}\t${d.only}\t${s}`;
    const g = groups.get(k) ?? { n: 0, stacks: new Set(), example: `${d.stack} ${d.key}: ${d.example}` };
    g.n++;
    g.stacks.add(d.stack);
    groups.set(k, g);
  }
const { unlisted, stale } = review(run.disagreements, readExpected());
for (const [k, g] of [...groups].sort())
  console.log(`${k}\t${g.n} entries in ${g.stacks.size} stacks\n    e.g. ${g.example.replace(/\s+/g, ' ').slice(0, 300)}`);
console.log(JSON.stringify(run.tally));
console.log(
  `${run.stacks.length} stacks, ${run.disagreements.length} disagreements, ${unlisted.length} unlisted, ${stale.length} stale, ${Date.now() - started} ms`,
);
