import { openPlatform } from '@bvl/platform';
import { describe, expect, it } from 'vitest';
import { type Disagreement, type Expected, review } from './compare.ts';
import { loadObjectStack, PINNED } from './objectstack.ts';
import { loadObjectStackEngine } from './objectstack-engine.ts';
import { runEngineOracle } from './run-engine.ts';
import { readExpected, runOracle } from './run-oracle.ts';

const os = await loadObjectStack();
const missing = typeof os === 'string' ? os : undefined;
if (missing && process.env.CI !== 'true') console.warn(`oracle tier skipped: ${missing}`);
const engine = missing ? missing : await loadObjectStackEngine(process.env.DATABASE_URL);
const engineMissing = typeof engine === 'string' ? engine : undefined;
if (!missing && engineMissing && process.env.CI !== 'true') console.warn(`oracle tier: the engine part skipped: ${engineMissing}`);

const show = (unlisted: readonly Disagreement[]) =>
  unlisted.slice(0, 40).map((d) => `${d.oracle} ${d.only}-only ${d.stack} ${d.key}: ${d.signatures.join(' | ')} — ${d.example}`);
const showStale = (stale: readonly Expected[]) => stale.map((e) => `${e.oracle} ${e.only} ${e.signature}`);

describe('the ObjectStack oracle', () => {
  it('has ObjectStack installed at the pinned version (required under CI)', () => {
    if (missing && process.env.CI !== 'true') return;
    expect(missing).toBeUndefined();
    if (typeof os === 'string') return;
    expect([os.version, os.lintVersion]).toEqual([PINNED, PINNED]);
  });

  it.skipIf(missing !== undefined)('agrees with bvl on every stack, but for the reviewed expected disagreements', () => {
    if (typeof os === 'string') return;
    const run = runOracle(os);
    const expected = readExpected().filter((e) => e.oracle !== 'engine');
    const { unlisted, stale } = review(run.disagreements, expected);
    const table = Object.entries(run.tally).map(
      ([oracle, t]) =>
        `${oracle}: ${t.stacksAgreeing}/${t.stacks} stacks agree entirely; ${t.entriesAgreeing} entries agree, ${t.entriesDisagreeing} disagree (all listed: ${expected.filter((e) => e.oracle === oracle).length} signatures)`,
    );
    console.log(`oracle (@objectstack/spec ${os.version}, @objectstack/lint ${os.lintVersion}), ${run.stacks.length} stacks:\n${table.join('\n')}`);
    expect(show(unlisted), 'disagreements not in expected-disagreements.json').toEqual([]);
    expect(showStale(stale), 'listed in expected-disagreements.json but no longer occurring').toEqual([]);
  });

  it('has the engine packages and a PostgreSQL server for them (required under CI)', () => {
    if (missing || (engineMissing && process.env.CI !== 'true')) return;
    expect(engineMissing).toBeUndefined();
    if (typeof engine === 'string') return;
    expect(engine.version).toBe(PINNED);
  });

  it.skipIf(engineMissing !== undefined)(
    "agrees with bvl's L3 on every published stack: seeds landed, views read, widget outcomes and numbers, but for the reviewed expected disagreements",
    async () => {
      if (typeof engine === 'string') return;
      const platform = await openPlatform({ databaseUrl: process.env.DATABASE_URL });
      try {
        const run = await runEngineOracle(engine, platform);
        const expected = readExpected().filter((e) => e.oracle === 'engine');
        const { unlisted, stale } = review(run.disagreements, expected);
        const t = run.tally;
        console.log(
          `engine (@objectstack/objectql + driver-sql + service-analytics ${engine.version}), ${t.stacks} stacks, ${run.units} units: ${t.stacksAgreeing}/${t.stacks} stacks agree entirely; ${t.entriesAgreeing} units agree, ${t.entriesDisagreeing} disagree (${expected.length} listed), ${t.notCompared} not compared (bvl refused the stack)`,
        );
        expect(show(unlisted), 'disagreements not in expected-disagreements.json').toEqual([]);
        expect(showStale(stale), 'listed in expected-disagreements.json but no longer occurring').toEqual([]);
      } finally {
        await platform.close();
      }
    },
    240_000,
  );
});
