import { findDuplicateKeys } from '@bvl/metadata';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countKeys, countMembers } from './refuse-duplicate-keys.ts';

describe('counting members against parsed keys (the duplicate-key fast path)', () => {
  it('agrees with the full scan on any JSON text, with and without a repeated key', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(json, fc.string(), fc.boolean(), (v, key, repeat) => {
        // Repeat a key by splicing a member into the outermost object's text.
        const inner = JSON.stringify(v);
        const text = repeat ? `{${JSON.stringify(key)}:1,"x":${inner},${JSON.stringify(key)}:2}` : `{${JSON.stringify(key)}:1,"x":${inner}}`;
        const hasDuplicates = findDuplicateKeys(text).length > 0;
        const parsed = JSON.parse(text);
        expect(countMembers(text) !== countKeys(parsed)).toBe(hasDuplicates);
      }),
      { seed: 20261201, numRuns: 1000 },
    );
  });

  it('skips colons, quotes and backslashes inside strings; counts __proto__ as a key', () => {
    const text = '{"a:b":"c:\\"d:","e":[{"f\\\\":":"}],"__proto__":{"g":null}}';
    expect(countMembers(text)).toBe(5);
    expect(countKeys(JSON.parse(text))).toBe(5);
    expect(countMembers('{"a":1,"a":2}')).toBe(2);
    expect(countKeys(JSON.parse('{"a":1,"a":2}'))).toBe(1);
  });
});
