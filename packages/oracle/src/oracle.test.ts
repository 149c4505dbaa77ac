import { describe, expect, it } from 'vitest';
import { review } from './compare.ts';
import { loadObjectStack, PINNED } from './objectstack.ts';
import { readExpected, runOracle } from './run-oracle.ts';

const os = await loadObjectStack();
const missing = typeof os === 'string' ? os : undefined;
if (missing && process.env.CI !== 'true') console.warn(`oracle tier skipped: ${missing}`);

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
    const expected = readExpected();
    const { unlisted, stale } = review(run.disagreements, expected);
    const table = Object.entries(run.tally).map(
      ([oracle, t]) =>
        `${oracle}: ${t.stacksAgreeing}/${t.stacks} stacks agree entirely; ${t.entriesAgreeing} entries agree, ${t.entriesDisagreeing} disagree (all listed: ${expected.filter((e) => e.oracle === oracle).length} signatures)`,
    );
    console.log(`oracle (@objectstack/spec ${os.version}, @objectstack/lint ${os.lintVersion}), ${run.stacks.length} stacks:\n${table.join('\n')}`);
    const show = unlisted.slice(0, 40).map((d) => `${d.oracle} ${d.only}-only ${d.stack} ${d.key}: ${d.signatures.join(' | ')} — ${d.example}`);
    expect(show, 'disagreements not in expected-disagreements.json').toEqual([]);
    expect(
      stale.map((e) => `${e.oracle} ${e.only} ${e.signature}`),
      'listed in expected-disagreements.json but no longer occurring',
    ).toEqual([]);
  });
});
