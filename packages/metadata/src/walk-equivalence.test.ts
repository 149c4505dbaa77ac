import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUnstorable, MAX_DEPTH, screenBody } from './collect-artifacts.ts';
import { pointer } from './json-pointer.ts';

// The walks as first written (one allocation per value): the allocation-free ones must answer the same.
const referenceDepth = (v: unknown): number =>
  typeof v !== 'object' || v === null ? 0 : 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(referenceDepth));

function referenceUnstorable(value: unknown): { path: string; what: string; fix?: string } | undefined {
  // Paths are built only for the value found: each frame links to its parent.
  type Frame = { v: unknown; key: string | number | undefined; parent: Frame | undefined };
  const pathOf = (f: Frame | undefined, last?: string): string => {
    const keys: Array<string | number> = last === undefined ? [] : [last];
    for (let at = f; at && at.key !== undefined; at = at.parent) keys.push(at.key);
    return pointer(...keys.reverse());
  };
  const stack: Frame[] = [{ v: value, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.v;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { path: pathOf(frame), what: 'a NUL character (U+0000), which no database text can store' };
      continue;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v))
        return { path: pathOf(frame), what: 'a number too large for any numeric column (it parses to infinity and would be stored as null)' };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push({ v: v[i], key: i, parent: frame });
    else
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        if (k.includes('\u0000')) return { path: pathOf(frame, k), what: 'a key with a NUL character (U+0000), which no database text can store' };
        if (k === '__proto__')
          return {
            path: pathOf(frame, k),
            what: 'the key "__proto__", which no JavaScript record holds (writing it sets the record\'s prototype, so its value would be lost: a field of that name is always empty)',
            fix: 'Rename the key "__proto__" (e.g. "proto"); no field, option or record key may be named so.',
          };
        stack.push({ v: (v as Record<string, unknown>)[k], key: k, parent: frame });
      }
  }
  return undefined;
}

describe('screenBody and findUnstorable answer as the reference walks do', () => {
  const key = fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('__proto__', 'a\u0000b', '0'));
  const leaf = fc.oneof(
    fc.string({ maxLength: 3 }),
    fc.constantFrom('x\u0000', Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, null, true),
    fc.double(),
    fc.integer(),
  );
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })),
  })).v;
  it('on any JSON-like value (NUL characters, infinities, __proto__ keys, deep nesting)', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(findUnstorable(v)).toEqual(referenceUnstorable(v));
        // The collector's one-pass screen says what the two walks say, depth first.
        expect(screenBody(v)).toBe(referenceDepth(v) > MAX_DEPTH ? 2 : referenceUnstorable(v) ? 1 : 0);
      }),
      { seed: 20261201, numRuns: 2000 },
    );
  });

  it('screens a body nested past MAX_DEPTH as too deep, whatever else it holds', () => {
    let deep: unknown = { x: 'a\u0000' };
    for (let i = 0; i < MAX_DEPTH; i++) deep = [deep];
    expect(screenBody(deep)).toBe(2);
    expect(screenBody((deep as unknown[])[0])).toBe(1);
    expect(screenBody(JSON.parse('{"__proto__": 1}'))).toBe(1);
    expect(screenBody(Number.POSITIVE_INFINITY)).toBe(1);
    expect(screenBody({ a: [1, 'b', { c: null }] })).toBe(0);
  });
});
