import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stableJson } from './stored-artifact.ts';

/** The form every stored content hash was taken of: JSON.stringify with each object rebuilt from its sorted keys. */
const reference = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  ) ?? 'null';

describe('stableJson', () => {
  it('writes what the reference writes for any JSON value, keys in any order (index-like keys, escapes, __proto__)', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('0', '1', '10', '2', '01', '4294967294', '4294967295', '-1', '__proto__', 'a', 'B', 'é', '\u0000'));
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(null, true, false, undefined, Number.POSITIVE_INFINITY, Number.NaN, -0),
        fc.double(),
        fc.integer(),
        fc.string(),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(key, tie('v'), { maxKeys: 5 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(stableJson(v)).toBe(reference(v));
      }),
      { seed: 20261201, numRuns: 2000 },
    );
  });

  it('sorts keys at every depth, leaves out undefined members and writes undefined items as null', () => {
    expect(stableJson({ b: 1, a: { d: [undefined, { z: 1, y: undefined }], c: '\u2028' }, 10: 0, 9: 0 })).toBe(
      '{"9":0,"10":0,"a":{"c":"\u2028","d":[null,{"z":1}]},"b":1}',
    );
    expect(stableJson(undefined)).toBe('null');
    expect(stableJson(JSON.parse('{"__proto__":{"x":1},"a":2}'))).toBe('{"__proto__":{"x":1},"a":2}');
  });
});
