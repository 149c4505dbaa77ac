import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonPatchOp } from '@bvl/build-issue';
import { CORPUS_NAMES, corpora, corpusDoc, exampleDoc, FIXTURE_NAMES, fixtureDoc, REPO_ROOT } from '@bvl/test-support';
import { applyPatch } from '@bvl/verify';
import type { StackDoc } from './doc-key.ts';
import { MUTATIONS, mutationSites } from './mutations.ts';

/** One stack the oracle judges: where it came from, and the document. */
export interface OracleStack {
  readonly name: string;
  /** `clean`: as shipped (a fixture, the example, a golden blueprint, a corpus); `defect`: a golden defect set; `mutation`: generated. */
  readonly kind: 'clean' | 'defect' | 'mutation';
  readonly doc: StackDoc;
}

const GOLDEN = join(REPO_ROOT, 'evals/golden');

type GoldenCase = { defects?: Record<string, { ops: JsonPatchOp[] }> };

/** Every clean stack: the fixtures, the example app, each golden blueprint, and the shared corpora when present. */
export function cleanStacks(): OracleStack[] {
  const out: OracleStack[] = [];
  for (const name of FIXTURE_NAMES) out.push({ name: `fixture/${name}`, kind: 'clean', doc: fixtureDoc(name) });
  out.push({ name: 'example/expense-tracker', kind: 'clean', doc: exampleDoc('app') });
  for (const c of goldenCases()) out.push({ name: `golden/${c}`, kind: 'clean', doc: blueprint(c) });
  if (corpora.present) for (const name of CORPUS_NAMES) out.push({ name: `corpus/${name}`, kind: 'clean', doc: corpusDoc(name) });
  return out;
}

/** Each golden case's defect sets, applied to its blueprint. */
export function defectStacks(): OracleStack[] {
  const out: OracleStack[] = [];
  for (const c of goldenCases()) {
    const spec = JSON.parse(readFileSync(join(GOLDEN, c, 'case.json'), 'utf8')) as GoldenCase;
    for (const [defect, set] of Object.entries(spec.defects ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
      const r = applyPatch(blueprint(c), set.ops);
      if (!r.ok) throw new Error(`golden case ${c}, defect set ${defect}: ${r.error}`);
      out.push({ name: `golden/${c}/${defect}`, kind: 'defect', doc: r.value as StackDoc });
    }
  }
  return out;
}

/** Each mutation kind applied to each clean stack at one site picked by the fixed test seed (stacks without such a site are skipped). */
export function mutatedStacks(clean: readonly OracleStack[], seed: number): OracleStack[] {
  const out: OracleStack[] = [];
  for (const s of clean)
    for (const m of MUTATIONS) {
      const sites = mutationSites(s.doc, m);
      if (sites.length === 0) continue;
      const site = sites[hash(`${seed}/${s.name}/${m.name}`) % sites.length]!;
      const r = applyPatch(s.doc, site);
      if (r.ok) out.push({ name: `${s.name}+${m.name}`, kind: 'mutation', doc: r.value as StackDoc });
    }
  return out;
}

function goldenCases(): string[] {
  return readdirSync(GOLDEN, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

function blueprint(c: string): StackDoc {
  return JSON.parse(readFileSync(join(GOLDEN, c, 'blueprint.json'), 'utf8')) as StackDoc;
}

/** FNV-1a: a stable pick from a seed and names. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
