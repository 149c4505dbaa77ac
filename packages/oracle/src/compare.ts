import type { Verdict } from './objectstack.ts';

/** The ObjectStack oracles bvl's L1/L2 verdicts are compared with, stack entry by stack entry. */
export const ORACLES = ['spec', 'lint'] as const;
/** Every authority of the tier: spec and lint (against L1/L2), and the engine (against L3, see run-engine.ts). */
export type Oracle = SpecOrLint | 'engine';
/** spec or lint. */
export type SpecOrLint = (typeof ORACLES)[number];

/** One stack entry on which an oracle and bvl disagree: only one of them says error. */
export interface Disagreement {
  readonly stack: string;
  readonly oracle: Oracle;
  readonly key: string;
  /** Who says error (the engine: whose outcome is worse, error > empty > rows; `both` when both return rows but the numbers differ). */
  readonly only: 'objectstack' | 'bvl' | 'both';
  /** The error signatures of that side on that entry, sorted. */
  readonly signatures: readonly string[];
  /** One message, for the report. */
  readonly example: string;
}

/** A reviewed, expected disagreement: every entry of expected-disagreements.json. */
export interface Expected {
  readonly oracle: Oracle;
  readonly only: 'objectstack' | 'bvl' | 'both';
  readonly signature: string;
  /** One line: why the two differ and why that is right for now. */
  readonly reason: string;
  /** Who is right, or whose behaviour bvl follows: the spec, lint, the engine, or objectui. */
  readonly authority: 'spec' | 'lint' | 'engine' | 'objectui';
}

/** Per-entry comparison of one oracle's errors with bvl's on one stack: the entries where they differ, and how many agree. */
export function compare(
  stack: string,
  oracle: Oracle,
  theirs: readonly Verdict[],
  ours: readonly Verdict[],
  keys: Iterable<string>,
): { agree: number; disagreements: Disagreement[] } {
  const by = (vs: readonly Verdict[]) => {
    const m = new Map<string, Verdict[]>();
    for (const v of vs) m.set(v.key, [...(m.get(v.key) ?? []), v]);
    return m;
  };
  const t = by(theirs);
  const o = by(ours);
  const all = new Set([...keys, ...t.keys(), ...o.keys()]);
  const disagreements: Disagreement[] = [];
  for (const key of [...all].sort()) {
    const a = t.get(key);
    const b = o.get(key);
    if (!a === !b) continue;
    const side = (a ?? b)!;
    disagreements.push({
      stack,
      oracle,
      key,
      only: a ? 'objectstack' : 'bvl',
      signatures: [...new Set(side.map((v) => v.signature))].sort(),
      example: side[0]!.message.slice(0, 240),
    });
  }
  return { agree: all.size - disagreements.length, disagreements };
}

/** The disagreements the file does not cover (some signature of theirs is not listed), and the listed entries no disagreement used. */
export function review(disagreements: readonly Disagreement[], expected: readonly Expected[]): { unlisted: Disagreement[]; stale: Expected[] } {
  const id = (oracle: string, only: string, signature: string) => `${oracle}\u0000${only}\u0000${signature}`;
  const listed = new Set(expected.map((e) => id(e.oracle, e.only, e.signature)));
  const used = new Set<string>();
  const unlisted: Disagreement[] = [];
  for (const d of disagreements) {
    const ids = d.signatures.map((s) => id(d.oracle, d.only, s));
    for (const i of ids) if (listed.has(i)) used.add(i);
    if (!ids.every((i) => listed.has(i))) unlisted.push(d);
  }
  return { unlisted, stale: expected.filter((e) => !used.has(id(e.oracle, e.only, e.signature))) };
}
