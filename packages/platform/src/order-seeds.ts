import { type Graph, RELATION_TYPES, referenceOf, type SeedNode } from '@bvl/metadata';

/**
 * Orders seeds so a seed runs after the seeds of the objects its records point at (ObjectStack's
 * loader does the same). Ties and cycles fall back to the given order: a cycle's back references
 * are resolved in a second pass, after every seed has run. Pure.
 */
export function orderSeeds(graph: Graph, seeds: readonly SeedNode[]): SeedNode[] {
  const byObject = new Map<string, number[]>();
  seeds.forEach((s, i) => byObject.set(s.object, [...(byObject.get(s.object) ?? []), i]));
  const deps = seeds.map((seed) => {
    const object = graph.objects.get(seed.object);
    const out = new Set<number>();
    if (!object) return out;
    // A loop, not flatMap: a seed of a million records would build an array of every key first.
    const used = new Set<string>();
    for (const r of seed.def.records) for (const k in r) used.add(k);
    for (const field of object.fields.values()) {
      if (!used.has(field.name) || !RELATION_TYPES.has(field.def.type)) continue;
      const target = referenceOf(field.def);
      if (!target || target === seed.object) continue;
      for (const j of byObject.get(target) ?? []) out.add(j);
    }
    return out;
  });
  const done = new Set<number>();
  const order: SeedNode[] = [];
  while (order.length < seeds.length) {
    let next = seeds.findIndex((_, i) => !done.has(i) && [...deps[i]!].every((d) => done.has(d)));
    if (next < 0) next = seeds.findIndex((_, i) => !done.has(i));
    done.add(next);
    order.push(seeds[next]!);
  }
  return order;
}
