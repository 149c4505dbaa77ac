import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_SEED } from '@bvl/test-support';
import { bvlVerdicts } from './bvl-verdicts.ts';
import { compare, type Disagreement, type Expected, ORACLES, type SpecOrLint } from './compare.ts';
import { docKey, type StackDoc } from './doc-key.ts';
import type { ObjectStack } from './objectstack.ts';
import { cleanStacks, defectStacks, mutatedStacks, type OracleStack } from './stacks.ts';

/** The reviewed file of expected disagreements, beside this package. */
export const EXPECTED_FILE = join(import.meta.dirname, '../expected-disagreements.json');

/** Reads the reviewed expected disagreements. */
export function readExpected(file = EXPECTED_FILE): Expected[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { disagreements: Expected[] }).disagreements;
}

/** Per oracle: stacks judged, stacks with no disagreement, entries agreeing, entries disagreeing. */
export interface Tally {
  stacks: number;
  stacksAgreeing: number;
  entriesAgreeing: number;
  entriesDisagreeing: number;
}

/** What one run of the tier found. */
export interface OracleRun {
  readonly stacks: readonly OracleStack[];
  readonly disagreements: Disagreement[];
  readonly tally: Record<SpecOrLint, Tally>;
}

/** Every entry of a stack document: the units compared even when nobody reports anything. */
function entries(doc: StackDoc): string[] {
  const out: string[] = [];
  for (const [collection, list] of Object.entries(doc)) if (Array.isArray(list)) list.forEach((_, i) => out.push(docKey(doc, collection, i)));
  return out;
}

/** Judges every stack (clean, golden defect sets, fixed-seed mutations) by ObjectStack's spec and lint and by bvl, entry by entry. */
export function runOracle(os: ObjectStack, seed = TEST_SEED): OracleRun {
  const clean = cleanStacks();
  const stacks = [...clean, ...defectStacks(), ...mutatedStacks(clean, seed)];
  const disagreements: Disagreement[] = [];
  const tally = Object.fromEntries(ORACLES.map((o) => [o, { stacks: 0, stacksAgreeing: 0, entriesAgreeing: 0, entriesDisagreeing: 0 }])) as Record<
    SpecOrLint,
    Tally
  >;
  for (const s of stacks) {
    const ours = bvlVerdicts(s.doc);
    const keys = entries(s.doc);
    for (const oracle of ORACLES) {
      const theirs = oracle === 'spec' ? os.spec(s.doc) : os.lint(s.doc);
      const r = compare(s.name, oracle, theirs, ours, keys);
      const t = tally[oracle];
      t.stacks++;
      if (r.disagreements.length === 0) t.stacksAgreeing++;
      t.entriesAgreeing += r.agree;
      t.entriesDisagreeing += r.disagreements.length;
      disagreements.push(...r.disagreements);
    }
  }
  return { stacks, disagreements, tally };
}
