import { buildGraph, collectStack } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { orderSeeds } from './order-seeds.ts';

describe('orderSeeds', () => {
  const objects = [
    { name: 'a', fields: { name: { type: 'text' }, b: { type: 'lookup', reference: 'b' } } },
    { name: 'b', fields: { name: { type: 'text' }, c: { type: 'lookup', reference: 'c' }, parent: { type: 'lookup', reference: 'b' } } },
    { name: 'c', fields: { name: { type: 'text' }, a: { type: 'lookup', reference: 'a' } } },
  ];
  const order = (data: unknown[]) => {
    const { graph } = buildGraph(collectStack({ objects, data }));
    return orderSeeds(graph, [...graph.seeds.values()]).map((s) => s.name);
  };
  it('runs targets first', () =>
    expect(
      order([
        { object: 'a', records: [{ b: 'x' }] },
        { object: 'b', records: [{ c: 'y' }] },
        { object: 'c', records: [{}] },
      ]),
    ).toEqual(['c', 'b', 'a']));
  it('ignores self references and references the records do not use', () =>
    expect(
      order([
        { object: 'b', records: [{ parent: 'p' }] },
        { object: 'c', records: [{}] },
      ]),
    ).toEqual(['b', 'c']));
  it('breaks a cycle in the given order', () =>
    expect(
      order([
        { object: 'a', records: [{ b: 'x' }] },
        { object: 'b', records: [{ c: 'y' }] },
        { object: 'c', records: [{ a: 'z' }] },
      ]),
    ).toEqual(['a', 'c', 'b']));
});
