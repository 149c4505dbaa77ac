import { propertyRuns } from '@bvl/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passAtK, passHatK } from './pass-at-k.ts';

describe('pass@k and pass^k', () => {
  const table: Array<{ n: number; c: number; k: number; at: number; hat: number }> = [
    { n: 1, c: 1, k: 1, at: 1, hat: 1 },
    { n: 1, c: 0, k: 1, at: 0, hat: 0 },
    { n: 4, c: 2, k: 1, at: 0.5, hat: 0.5 },
    { n: 4, c: 2, k: 2, at: 5 / 6, hat: 1 / 6 },
    { n: 4, c: 1, k: 4, at: 1, hat: 0 },
    { n: 4, c: 4, k: 4, at: 1, hat: 1 },
    { n: 5, c: 0, k: 3, at: 0, hat: 0 },
    { n: 10, c: 3, k: 2, at: 1 - 21 / 45, hat: 3 / 45 },
  ];
  it.each(table)('n=$n c=$c k=$k', ({ n, c, k, at, hat }) => {
    expect(passAtK(n, c, k)).toBeCloseTo(at, 12);
    expect(passHatK(n, c, k)).toBeCloseTo(hat, 12);
  });

  it('pass^k <= pass@1 <= pass@k, all within [0, 1], and more passes never lower either', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.nat(), fc.nat(), (n, c0, k0) => {
        const c = c0 % (n + 1);
        const k = (k0 % n) + 1;
        const at = passAtK(n, c, k);
        const hat = passHatK(n, c, k);
        const one = passAtK(n, c, 1);
        expect(one).toBeCloseTo(c / n, 12);
        expect(hat).toBeLessThanOrEqual(one + 1e-12);
        expect(one).toBeLessThanOrEqual(at + 1e-12);
        for (const x of [at, hat]) expect(x >= -1e-12 && x <= 1 + 1e-12).toBe(true);
        if (c < n) {
          expect(passAtK(n, c + 1, k)).toBeGreaterThanOrEqual(at - 1e-12);
          expect(passHatK(n, c + 1, k)).toBeGreaterThanOrEqual(hat - 1e-12);
        }
      }),
      propertyRuns(100, 1_000),
    );
  });

  it('refuses what is not a count: k above n, c above n, fractions', () => {
    expect(() => passAtK(2, 1, 3)).toThrow(RangeError);
    expect(() => passHatK(2, 3, 1)).toThrow(RangeError);
    expect(() => passAtK(2.5, 1, 1)).toThrow(RangeError);
    expect(() => passAtK(0, 0, 1)).toThrow(RangeError);
  });
});
