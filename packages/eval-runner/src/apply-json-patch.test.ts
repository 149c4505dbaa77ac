import type { JsonPatchOp } from '@bvl/build-issue';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, getPointer, JsonPatchError, parsePointer } from './apply-json-patch.ts';

// RFC 6902 appendix A, plus what staging defects and applying fixes lean on.
const valid: Array<[string, unknown, JsonPatchOp[], unknown]> = [
  ['add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { foo: 'bar', baz: 'qux' }],
  ['add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
  ['append with -', { foo: [1] }, [{ op: 'add', path: '/foo/-', value: 2 }], { foo: [1, 2] }],
  ['remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
  ['remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
  ['replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
  ['replace an array element in place', { a: [1, 2, 3] }, [{ op: 'replace', path: '/a/1', value: 9 }], { a: [1, 9, 3] }],
  [
    'move a value',
    { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  ],
  [
    'move an array element',
    { foo: ['all', 'grass', 'cows', 'eat'] },
    [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    { foo: ['all', 'cows', 'eat', 'grass'] },
  ],
  ['copy a value', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: 1 }, c: { b: 1 } }],
  [
    'test then replace',
    { a: [1, { b: 'x' }] },
    [
      { op: 'test', path: '/a/1', value: { b: 'x' } },
      { op: 'replace', path: '/a/1/b', value: 'y' },
    ],
    { a: [1, { b: 'y' }] },
  ],
  ['escaped segments ~0 and ~1', { 'a/b': { 'm~n': 1 } }, [{ op: 'replace', path: '/a~1b/m~0n', value: 2 }], { 'a/b': { 'm~n': 2 } }],
  ['replace the whole document', { a: 1 }, [{ op: 'replace', path: '', value: [1] }], [1]],
  ['add a null value', { a: 1 }, [{ op: 'add', path: '/b', value: null }], { a: 1, b: null }],
];

const invalid: Array<[string, unknown, JsonPatchOp[], number, string]> = [
  ['add under a missing parent', { a: 1 }, [{ op: 'add', path: '/b/c', value: 1 }], 0, 'does not exist'],
  ['replace a missing member', { a: 1 }, [{ op: 'replace', path: '/b', value: 1 }], 0, 'does not exist'],
  ['remove past the end', { a: [1] }, [{ op: 'remove', path: '/a/1' }], 0, 'not an index'],
  ['an index with a leading zero', { a: [1, 2] }, [{ op: 'replace', path: '/a/01', value: 1 }], 0, 'does not exist'],
  [
    'a failed test, second op',
    { a: 1 },
    [
      { op: 'replace', path: '/a', value: 2 },
      { op: 'test', path: '/a', value: 1 },
    ],
    1,
    'test failed',
  ],
  ['a pointer without a slash', { a: 1 }, [{ op: 'add', path: 'a', value: 1 }], 0, 'not a JSON pointer'],
  ['move into itself', { a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }], 0, 'into itself'],
  ['copy from a missing path', { a: 1 }, [{ op: 'copy', from: '/x', path: '/y' }], 0, 'does not exist'],
];

describe('applyJsonPatch', () => {
  it.each(valid)('%s', (_name, doc, ops, expected) => {
    const before = structuredClone(doc);
    expect(applyJsonPatch(doc, ops)).toEqual(expected);
    expect(doc).toEqual(before);
  });

  it.each(invalid)('refuses: %s, naming the operation', (_name, doc, ops, index, reason) => {
    let error: unknown;
    try {
      applyJsonPatch(doc, ops);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JsonPatchError);
    expect((error as JsonPatchError).index).toBe(index);
    expect((error as JsonPatchError).message).toContain(reason);
  });

  it('is all or nothing: a failing patch leaves the input untouched', () => {
    const doc = { a: [1, 2] };
    expect(() =>
      applyJsonPatch(doc, [
        { op: 'remove', path: '/a/0' },
        { op: 'remove', path: '/b' },
      ]),
    ).toThrow(JsonPatchError);
    expect(doc).toEqual({ a: [1, 2] });
  });
});

describe('pointers', () => {
  it('parses and reads RFC 6901 pointers', () => {
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('/a~1b/~01')).toEqual(['a/b', '~1']);
    expect(getPointer({ a: [{ b: 0 }] }, '/a/0/b')).toBe(0);
    expect(getPointer({ a: [] }, '/a/0')).toBeUndefined();
    expect(getPointer({ a: 1 }, '/a/b')).toBeUndefined();
  });
});
