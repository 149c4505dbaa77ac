import { describe, expect, it } from 'vitest';
import { findJsonPositions } from './find-json-positions.ts';

const TEXT = `{
  "views": [
    { "list": { "type": "list", "columns": ["a", "b"] } },
    {
      "name": "x/y",
      "config": {}
    }
  ],
  "n": 1
}`;

describe('findJsonPositions', () => {
  it('places members at their key and elements at their value, 1-based, end exclusive', () => {
    const at = findJsonPositions(TEXT, ['/views/0/list/type', '/views/0/list/columns/1', '/views/1', '/n', '']);
    expect(at.get('/views/0/list/type')).toEqual({ line: 3, column: 17, endLine: 3, endColumn: 31, found: '/views/0/list/type' });
    expect(at.get('/views/0/list/columns/1')).toMatchObject({ line: 3, column: 50, endColumn: 53 });
    expect(at.get('/views/1')).toEqual({ line: 4, column: 5, endLine: 7, endColumn: 6, found: '/views/1' });
    expect(at.get('/n')).toMatchObject({ line: 9, column: 3 });
    expect(at.get('')).toMatchObject({ line: 1, column: 1, endLine: 10, endColumn: 2 });
  });

  it('gives an absent member its deepest existing ancestor, and unescapes ~1 in keys', () => {
    const at = findJsonPositions(TEXT, ['/views/1/config/type', '/views/7/x', '/views/1/name']);
    expect(at.get('/views/1/config/type')).toMatchObject({ line: 6, column: 7, found: '/views/1/config' });
    expect(at.get('/views/7/x')).toMatchObject({ line: 2, column: 3, found: '/views' });
    expect(findJsonPositions('{"a/b": 1}', ['/a~1b']).get('/a~1b')).toMatchObject({ line: 1, column: 2, found: '/a~1b' });
  });

  it('text nested deeper than the call stack holds: what was found before the depth, no throw', () => {
    const deep = `{"n":1,"f":${'['.repeat(100_000)}1${']'.repeat(100_000)}}`;
    const at = findJsonPositions(deep, ['/n', '/f/0']);
    expect(at.get('/n')).toMatchObject({ line: 1, column: 2, found: '/n' });
    expect(at.has('/f/0')).toBe(false);
  });

  it('reads a large array without entering what no pointer asks for', () => {
    const big = JSON.stringify({ items: Array.from({ length: 20_000 }, (_, i) => ({ id: i, tags: ['x', 'y'] })) }, null, 1);
    const at = findJsonPositions(big, ['/items/19999/tags/1']);
    expect(at.get('/items/19999/tags/1')?.found).toBe('/items/19999/tags/1');
    expect(big.split('\n')[at.get('/items/19999/tags/1')!.line - 1]!.trim()).toBe('"y"');
  });
});
