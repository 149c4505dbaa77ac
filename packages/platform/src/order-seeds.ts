import { type Graph, RELATION_TYPES, referenceOf, type SeedNode } from '@bvl/metadata';

/** The keys a seed's records use that matter to its order: lookup fields to the objects of other seeds of the run. */
export function orderingFields(graph: Graph, seed: SeedNode, seeds: readonly SeedNode[]): string[] {
  const object = graph.objects.get(seed.object);
  if (!object) return [];
  const objects = new Set(seeds.map((s) => s.object));
  const out: string[] = [];
  for (const field of object.fields.values()) {
    if (!RELATION_TYPES.has(field.def.type)) continue;
    const target = referenceOf(field.def);
    if (target && target !== seed.object && objects.has(target)) out.push(field.name);
  }
  return out;
}

/**
 * Orders seeds so a seed runs after the seeds of the objects its records point at (ObjectStack's
 * loader does the same). Ties and cycles fall back to the given order: a cycle's back references
 * are resolved in a second pass, after every seed has run. Pure. `used`: per seed, the keys its
 * records use (at least those {@link orderingFields} names), for a seed whose records are not held
 * in `def.records` (read from its source before); default: the keys of `def.records`.
 */
export function orderSeeds(graph: Graph, seeds: readonly SeedNode[], used?: ReadonlyMap<SeedNode, ReadonlySet<string>>): SeedNode[] {
  const byObject = new Map<string, number[]>();
  seeds.forEach((s, i) => byObject.set(s.object, [...(byObject.get(s.object) ?? []), i]));
  const deps = seeds.map((seed) => {
    const object = graph.objects.get(seed.object);
    const out = new Set<number>();
    if (!object) return out;
    let keys = used?.get(seed);
    if (!keys) {
      // A loop, not flatMap: a seed of a million records would build an array of every key first.
      const all = new Set<string>();
      for (const r of seed.def.records) for (const k in r) all.add(k);
      keys = all;
    }
    for (const field of object.fields.values()) {
      if (!keys.has(field.name) || !RELATION_TYPES.has(field.def.type)) continue;
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
