import { propertyRuns } from '@bvl/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideRound, diffRound, type PastRound, type RoundInput } from './decide-round.ts';
import { type SessionBounds, SessionBoundsSchema } from './session-bounds.ts';

const bounds = (over: Partial<SessionBounds> = {}): SessionBounds => SessionBoundsSchema.parse(over);
const usage = { elapsedMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
const v = (...errors: string[]): PastRound => ({ kind: 'verify', errors, warnings: [] });
const p = (...errors: string[]): PastRound => ({ kind: 'publish', errors, warnings: [] });
const decide = (history: PastRound[], errors: string[], over: Partial<RoundInput> = {}) =>
  decideRound({ kind: 'verify', history, errors, warnings: [], bounds: bounds(), usage, ...over });

describe('decideRound', () => {
  it.each([
    ['first verify with errors: repair', [], ['a', 'b'], {}, undefined, 'repair'],
    ['a verify with no L1/L2 error: publish', [v('a')], [], {}, undefined, 'publish'],
    ['repair round 1 of 2 made progress: repair', [v('a', 'b')], ['b'], {}, undefined, 'repair'],
    ['repair round 2 of 2 leaves errors: max_rounds', [v('a', 'b', 'c'), v('b', 'c')], ['c'], {}, 'max_rounds', 'stop'],
    ['max 0 repair rounds: the first verify with errors stops', [], ['a'], { bounds: bounds({ maxRounds: 0 }) }, 'max_rounds', 'stop'],
    ['a fixed fingerprint is back: oscillation', [v('a', 'b'), v('b')], ['a', 'b'], { bounds: bounds({ maxRounds: 5 }) }, 'oscillation', 'stop'],
    ['error count not down for 2 rounds: no_progress', [v('a'), v('b')], ['c'], { bounds: bounds({ maxRounds: 5 }) }, 'no_progress', 'stop'],
    [
      'a spent token budget stops',
      [v('a')],
      ['a2'],
      { usage: { ...usage, tokensIn: 900, tokensOut: 200 }, bounds: bounds({ budgetTokens: 1000 }) },
      'budget',
      'stop',
    ],
    [
      'a clean round that spent the USD budget still publishes',
      [v('a')],
      [],
      { usage: { ...usage, costUsd: 2 }, bounds: bounds({ budgetUsd: 1 }) },
      undefined,
      'publish',
    ],
    [
      'a publish round with L3 errors and a spent budget stops',
      [v('a'), v()],
      ['e1'],
      { kind: 'publish' as const, usage: { ...usage, costUsd: 2 }, bounds: bounds({ budgetUsd: 1 }) },
      'budget',
      'stop',
    ],
    ['wall clock budget', [], ['a'], { usage: { ...usage, elapsedMs: 61_000 }, bounds: bounds({ budgetMs: 60_000 }) }, 'budget', 'stop'],
    ['cancelled wins over everything', [v('a')], [], { cancelled: true }, 'cancelled', 'stop'],
    ['a publish round with no L3 error: clean', [v('a'), v()], [], { kind: 'publish' as const }, 'clean', 'stop'],
    ['L3 errors re-open the session within the bounds', [v('a'), v()], ['e1'], { kind: 'publish' as const }, undefined, 'repair'],
    ['L3 errors after the last repair round: max_rounds', [v('a'), v('b'), v()], ['e1'], { kind: 'publish' as const }, 'max_rounds', 'stop'],
  ] as const)('%s', (_name, history, errors, over, stop, next) => {
    const d = decide([...history], [...errors], over as Partial<RoundInput>);
    expect(d.stop).toBe(stop);
    expect(d.next).toBe(next);
    expect(d.why.length).toBeGreaterThan(0);
  });

  it('a clean round over budget says the overrun; an oscillation names each issue that is back and its rounds', () => {
    expect(decide([v('a')], [], { usage: { ...usage, costUsd: 2 }, bounds: bounds({ budgetUsd: 1 }) }).why).toMatch(/over budget: cost \$2\.0000 > \$1/);
    const d = decide([v('a', 'b'), v('b')], ['a', 'b'], {
      bounds: bounds({ maxRounds: 5 }),
      labels: { a: 'unknown_measure on dashboard "spending" at /widgets/0' },
    });
    expect(d.stop).toBe('oscillation');
    expect(d.why).toContain('unknown_measure on dashboard "spending" at /widgets/0 (in round 0, fixed in round 1, back in round 2)');
  });

  it('compares rounds of the same kind: an L3 fingerprint absent from verify rounds is not "reappeared"', () => {
    const d = decideRound({ kind: 'publish', history: [v('a'), p('e1'), v()], errors: ['e1'], warnings: [], bounds: bounds({ maxRounds: 5 }), usage });
    expect(d.diff).toEqual({ fixed: [], persisting: ['e1'], new: [], reappeared: [], masked: [] });
    expect(d.stop).toBeUndefined();
  });

  it('diffs fixed / persisting / new / reappeared by fingerprint', () => {
    expect(diffRound([v('a', 'b'), v('b', 'c')], 'verify', ['a', 'c', 'd'])).toEqual({
      fixed: ['b'],
      persisting: ['c'],
      new: ['d'],
      reappeared: ['a'],
      masked: [],
    });
  });

  it('a masked issue is not fixed: masked while hidden, persisting when it shows again, never an oscillation', () => {
    // Round 1 reports m (a measure); round 2 breaks the widget's dataset (d masks m); round 3 repairs the binding: m shows again.
    const masked = decideRound({ kind: 'verify', history: [v('m')], errors: ['d'], warnings: [], bounds: bounds({ maxRounds: 5 }), usage, masked: ['m'] });
    expect(masked.diff).toEqual({ fixed: [], persisting: [], new: ['d'], reappeared: [], masked: ['m'] });
    const back = decideRound({
      kind: 'verify',
      history: [v('m'), { ...v('d'), masked: ['m'] }],
      errors: ['m'],
      warnings: [],
      bounds: bounds({ maxRounds: 5 }),
      usage,
    });
    expect(back.diff).toEqual({ fixed: ['d'], persisting: ['m'], new: [], reappeared: [], masked: [] });
    expect(back.stop).toBeUndefined();
  });

  it('a masked error still counts towards no_progress', () => {
    const d = decideRound({
      kind: 'verify',
      history: [v('a'), { ...v('b'), masked: ['a'] }],
      errors: ['b'],
      warnings: [],
      bounds: bounds({ maxRounds: 5, noProgressRounds: 2 }),
      usage,
      masked: ['a'],
    });
    expect(d.diff.fixed).toEqual([]);
    expect(d.stop).toBe('no_progress');
  });
});

describe('decideRound properties', () => {
  // A random agent: each round's error set is a random subset of a small universe of fingerprints.
  const errorSets = fc.array(fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 5 }), { minLength: 1, maxLength: 30 });
  const boundsArb = fc.record({ maxRounds: fc.integer({ min: 0, max: 6 }), noProgressRounds: fc.integer({ min: 1, max: 4 }) });

  const run = (sets: string[][], b: SessionBounds) => {
    const history: PastRound[] = [];
    for (const errors of sets) {
      const d = decideRound({ kind: 'verify', history, errors, warnings: [], bounds: b, usage });
      history.push({ kind: 'verify', errors, warnings: [] });
      if (d.stop || d.next !== 'repair') return { history, decision: d };
    }
    return { history, decision: undefined };
  };

  it('always stops or hands over to publish within maxRounds + 1 rounds, and never exceeds the bound', () => {
    fc.assert(
      fc.property(errorSets, boundsArb, (sets, raw) => {
        const b = bounds(raw);
        const { history, decision } = run(sets, b);
        if (!decision) return sets.length <= b.maxRounds; // ran out of input before the bound
        return history.length <= b.maxRounds + 1 && decision.repairRounds <= b.maxRounds;
      }),
      propertyRuns(100, 1_000),
    );
  });

  it('a stop always names its reason and why; a hand-over to publish never carries a stop', () => {
    fc.assert(
      fc.property(errorSets, boundsArb, (sets, raw) => {
        const { history, decision } = run(sets, bounds(raw));
        if (!decision) return true;
        const lastErrors = history[history.length - 1]!.errors;
        if (decision.next === 'publish') return decision.stop === undefined && lastErrors.length === 0;
        return decision.stop !== undefined && decision.why.length > 0;
      }),
      propertyRuns(100, 1_000),
    );
  });

  it('a publish decision only follows an error-free verify round', () => {
    fc.assert(
      fc.property(errorSets, boundsArb, (sets, raw) => {
        const b = bounds(raw);
        const history: PastRound[] = [];
        for (const errors of sets) {
          const d = decideRound({ kind: 'verify', history, errors, warnings: [], bounds: b, usage });
          if (d.next === 'publish' && errors.length > 0) return false;
          history.push({ kind: 'verify', errors, warnings: [] });
          if (d.next !== 'repair') break;
        }
        return true;
      }),
      propertyRuns(100, 1_000),
    );
  });
});
