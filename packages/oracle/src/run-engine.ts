import type { Platform } from '@bvl/platform';
import { exampleDoc } from '@bvl/test-support';
import { bvlAnswers } from './bvl-engine.ts';
import type { Disagreement } from './compare.ts';
import type { StackDoc } from './doc-key.ts';
import { type Answer, type Outcome, planUnits, type Unit } from './engine-units.ts';
import type { ObjectStackEngine } from './objectstack-engine.ts';
import { cleanStacks, type OracleStack } from './stacks.ts';

/** Clean stacks the engine does not judge (none now: every fixture, example, golden case and corpus stack boots). */
export const NOT_ON_ENGINE = new Set<string>();

/**
 * The stacks the engine authority runs: every clean stack (the example, each golden blueprint, and
 * the shared corpora when present — all of them: the whole engine part takes about half a minute),
 * plus the example with its drafts overlaid (the demo's broken build, which
 * bvl's gate refuses: there only the units bvl's L1/L2 errors name are compared).
 */
export function engineStacks(): OracleStack[] {
  return [
    ...cleanStacks().filter((s) => !NOT_ON_ENGINE.has(s.name)),
    { name: 'example/expense-tracker+drafts', kind: 'defect', doc: withDrafts(exampleDoc('app'), exampleDoc('drafts')) },
  ];
}

/** A document with another's entries laid over it by name (what `bvl verify --drafts` reads). */
export function withDrafts(app: StackDoc, drafts: StackDoc): StackDoc {
  const out: StackDoc = structuredClone(app);
  for (const [key, list] of Object.entries(drafts)) {
    if (!Array.isArray(list)) continue;
    const base = Array.isArray(out[key]) ? [...(out[key] as unknown[])] : [];
    for (const d of list) {
      const name = (d as { name?: unknown }).name;
      const i = base.findIndex((b) => name !== undefined && (b as { name?: unknown }).name === name);
      if (i >= 0) base[i] = d;
      else base.push(d);
    }
    out[key] = base;
  }
  return out;
}

/** Per stack: units answered by both and agreeing, disagreeing, or not compared (bvl refused the stack and names no error on them). */
export interface EngineTally {
  stacks: number;
  stacksAgreeing: number;
  entriesAgreeing: number;
  entriesDisagreeing: number;
  notCompared: number;
}

const RANK: Record<Outcome, number> = { rows: 0, empty: 1, error: 2 };

/**
 * Compares the two engines' answers unit by unit. Outcomes differ: a disagreement whose side is
 * the one with the worse outcome (error > empty > rows). Both return rows but the counts or the
 * normalised widget rows differ: a disagreement of `both`. Signatures name the unit and the stack,
 * so each engine disagreement is reviewed where it occurs; a widget over an object whose seeded
 * rows already differ carries that seed's signature (one per stack and object).
 */
export function compareEngine(stack: string, units: readonly Unit[], theirs: readonly Answer[], ours: readonly Answer[]) {
  const disagreements: Disagreement[] = [];
  let agree = 0;
  let notCompared = 0;
  // Objects whose seeded rows differ: a widget over one cannot agree, and its disagreement is that
  // seed's (listed once, at the seed), not a finding of its own.
  const rowsDiffer = new Set<string>();
  for (const u of units) {
    if (u.kind !== 'seed') continue;
    const a = theirs.find((x) => x.key === u.key);
    const b = ours.find((x) => x.key === u.key);
    if (a && b && (a.outcome !== b.outcome || a.count !== b.count)) rowsDiffer.add(u.object);
  }
  for (const u of units) {
    const a = theirs.find((x) => x.key === u.key);
    const b = ours.find((x) => x.key === u.key);
    if (!b || !a) {
      notCompared++;
      continue;
    }
    const bvlSays = b.codes?.length ? b.codes.join(',') : b.outcome;
    let only: Disagreement['only'] | undefined;
    let what = '';
    if (a.outcome !== b.outcome) {
      only = RANK[a.outcome] > RANK[b.outcome] ? 'objectstack' : 'bvl';
      what = `engine ${a.outcome} / bvl ${bvlSays}`;
    } else if (a.count !== b.count || JSON.stringify(a.rows ?? []) !== JSON.stringify(b.rows ?? [])) {
      only = 'both';
      what = u.kind === 'seed' ? `rows landed differ: engine ${a.count} / bvl ${b.count}` : 'numbers differ';
    }
    if (!only) {
      agree++;
      continue;
    }
    const example =
      only === 'both'
        ? `engine ${JSON.stringify(a.rows ?? a.count)} / bvl ${JSON.stringify(b.rows ?? b.count)}`
        : `${only === 'objectstack' ? `engine: ${a.error ?? a.outcome}` : `bvl: ${b.error ?? b.outcome}`}`;
    const signature =
      u.kind === 'widget' && u.object !== undefined && rowsDiffer.has(u.object)
        ? `widget answers follow the rows of seed ${u.object} @ ${stack}`
        : `${u.kind} ${what} @ ${stack} ${u.key}`;
    disagreements.push({ stack, oracle: 'engine', key: u.key, only, signatures: [signature], example: example.slice(0, 240) });
  }
  return { agree, notCompared, disagreements };
}

/** Runs every engine stack through ObjectStack's engine and bvl's L3 and compares them. */
export async function runEngineOracle(
  engine: ObjectStackEngine,
  platform: Platform,
  stacks: readonly OracleStack[] = engineStacks(),
): Promise<{ disagreements: Disagreement[]; tally: EngineTally; units: number }> {
  const tally: EngineTally = { stacks: 0, stacksAgreeing: 0, entriesAgreeing: 0, entriesDisagreeing: 0, notCompared: 0 };
  const disagreements: Disagreement[] = [];
  let total = 0;
  for (const s of stacks) {
    const { units } = planUnits(s.doc);
    total += units.length;
    const theirs = await engine.answer(s.doc, units);
    const ours = await bvlAnswers(platform, s.doc, units);
    const r = compareEngine(s.name, units, theirs, ours);
    tally.stacks++;
    if (r.disagreements.length === 0) tally.stacksAgreeing++;
    tally.entriesAgreeing += r.agree;
    tally.entriesDisagreeing += r.disagreements.length;
    tally.notCompared += r.notCompared;
    disagreements.push(...r.disagreements);
  }
  return { disagreements, tally, units: total };
}
