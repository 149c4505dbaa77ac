import { describe, expect, it } from 'vitest';
import { applyPatch, parsePointer } from './apply-patch.ts';

const doc = () => ({ a: { b: [1, 2, 3] }, 'x/y': { '~z': 'v' }, s: 'text' });

describe('applyPatch', () => {
  it('applies every RFC 6902 op to a copy and reports old → new', () => {
    const input = doc();
    const r = applyPatch(input, [
      { op: 'replace', path: '/a/b/1', value: 20 },
      { op: 'add', path: '/a/b/-', value: 4 },
      { op: 'add', path: '/a/c', value: { d: true } },
      { op: 'remove', path: '/s' },
      { op: 'test', path: '/x~1y/~0z', value: 'v' },
      { op: 'copy', from: '/a/c', path: '/c' },
      { op: 'move', from: '/a/b/0', path: '/first' },
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({ a: { b: [20, 3, 4], c: { d: true } }, 'x/y': { '~z': 'v' }, c: { d: true }, first: 1 });
    expect(r.changes[0]).toEqual({ path: '/a/b/1', op: 'replace', old: 2, new: 20 });
    expect(r.changes[3]).toEqual({ path: '/s', op: 'remove', old: 'text' });
    expect(input).toEqual(doc());
  });

  it.each([
    ['a missing member', { op: 'replace', path: '/nope', value: 1 }, /does not exist/],
    ['an index out of range', { op: 'replace', path: '/a/b/9', value: 1 }, /out of range/],
    ['a failed test', { op: 'test', path: '/s', value: 'other' }, /test failed/],
    ['a path that is not a pointer', { op: 'remove', path: 'a.b' }, /not a JSON pointer/],
    ['a move into itself', { op: 'move', from: '/a', path: '/a/b/x' }, /into itself/],
  ] as const)('refuses %s, all or nothing, naming the op', (_name, op, why) => {
    const r = applyPatch(doc(), [{ op: 'replace', path: '/s', value: 'changed' }, op as never]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.opIndex).toBe(1);
    expect(r.error).toMatch(why);
  });

  it('adds a __proto__ key as an own member, never the prototype', () => {
    const r = applyPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]);
    expect(r.ok && Object.hasOwn(r.value as object, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('parses pointers with escapes', () => {
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('/a~1b/~01')).toEqual(['a/b', '~1']);
  });
});
