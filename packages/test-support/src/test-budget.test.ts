import { describe, expect, it } from 'vitest';
import { DEFAULT_TEST_SEED, propertyRuns, sampleEach, TEST_SEED, testSeed } from './test-budget.ts';

describe('the test budget', () => {
  it('a fixed seed unless BVL_TEST_SEED names another; a bad one is refused', () => {
    expect(testSeed({})).toBe(DEFAULT_TEST_SEED);
    expect(testSeed({ BVL_TEST_SEED: '' })).toBe(DEFAULT_TEST_SEED);
    expect(testSeed({ BVL_TEST_SEED: '-42' })).toBe(-42);
    for (const bad of ['abc', '1.5', '1e30']) expect(() => testSeed({ BVL_TEST_SEED: bad })).toThrow(/BVL_TEST_SEED=.* is not an integer seed/);
  });

  it('property runs: the sample or the exhaustive count, always from the seed', () => {
    expect(propertyRuns(30, 500, false)).toEqual({ numRuns: 30, seed: TEST_SEED });
    expect(propertyRuns(30, 500, true)).toEqual({ numRuns: 500, seed: TEST_SEED });
  });

  const items = Array.from({ length: 60 }, (_, i) => ({ i, kind: `k${i % 6}` }));
  const kind = (x: { kind: string }) => x.kind;

  it('samples every key, perKey items each (all of a smaller group), in their order, the same every time', () => {
    const picked = sampleEach(items, kind, 2, 'a');
    expect(picked).toHaveLength(12);
    for (let k = 0; k < 6; k++) expect(picked.filter((x) => x.kind === `k${k}`)).toHaveLength(2);
    expect(picked.map((x) => x.i)).toEqual([...picked.map((x) => x.i)].sort((a, b) => a - b));
    expect(sampleEach(items, kind, 2, 'a')).toEqual(picked);
    expect(sampleEach(items, kind, 50, 'a')).toEqual(items);
    expect(sampleEach([...items, { i: 99, kind: 'rare' }], kind, 2, 'a').filter((x) => x.kind === 'rare')).toEqual([{ i: 99, kind: 'rare' }]);
  });

  it('takes everything in the exhaustive pass', () => {
    expect(sampleEach(items, kind, 1, 'a', true)).toEqual(items);
  });

  it('another salt samples independently, and over many salts every item gets its turn', () => {
    const seen = new Set<number>();
    const distinct = new Set<string>();
    for (let s = 0; s < 200; s++) {
      const picked = sampleEach(items, kind, 1, `salt ${s}`);
      distinct.add(picked.map((x) => x.i).join(','));
      for (const x of picked) seen.add(x.i);
    }
    expect(seen.size).toBe(items.length);
    expect(distinct.size).toBeGreaterThan(150);
  });
});
