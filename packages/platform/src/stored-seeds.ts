import type { ArtifactSet, Graph, SeedNode } from '@bvl/metadata';
import { type Verification, verifyStreamed } from '@bvl/verify';
import type { Kysely } from 'kysely';
import type { BvlDatabase } from './database.ts';
import { type StoredSeed, storedSeedRecords } from './run-drafts.ts';

/**
 * The records of the stored seeds of a graph built from rows readOverlayRows read with
 * `storedSeeds` (a node whose `stored` is a {@link StoredSeed}), read by cursor in `trx` — the
 * transaction the rows were read in; undefined for a seed held in memory (its node's records).
 */
export function storedSeedSources(trx: Kysely<BvlDatabase>, tenant: string): (seed: SeedNode) => ReturnType<typeof storedSeedRecords> | undefined {
  return (seed) => (seed.stored === undefined ? undefined : storedSeedRecords(trx, tenant, seed.stored as StoredSeed));
}

/**
 * The publish gate over an overlay whose large seeds are stored (see readOverlayRows'
 * `storedSeeds`): `verify(published, drafts)`'s issues, each stored seed's records read part by
 * part in `trx` instead of held. Rejects when a stored seed went or changed while read (the
 * transaction rolls back).
 */
export function verifyStored(trx: Kysely<BvlDatabase>, tenant: string, published: ArtifactSet, drafts: ArtifactSet | undefined): Promise<Verification> {
  return verifyStreamed(published, drafts, storedSeedSources(trx, tenant));
}

/**
 * The graph with every stored seed's records read whole into its node (`stored` unset), the other
 * nodes shared: what code that reads `seed.def.records` needs. A bridge: the seed writer and the
 * republish check still read records so (issue 21, SEED-PLAN item 4), so a publish holds a stored
 * seed's records from here on — after the gate, which does not.
 */
export async function holdStoredSeeds(trx: Kysely<BvlDatabase>, tenant: string, graph: Graph): Promise<Graph> {
  const stored = [...graph.seeds.values(), ...[...graph.priorSeedsByObject.values()].flat()].filter((s) => s.stored !== undefined);
  if (stored.length === 0) return graph;
  const held = new Map<SeedNode, SeedNode>();
  for (const seed of stored) {
    const records: Record<string, unknown>[] = [];
    let n = 0;
    for await (const part of storedSeedRecords(trx, tenant, seed.stored as StoredSeed)()) {
      for (const r of part) records.push(r as Record<string, unknown>);
      n += part.length;
    }
    if (n !== seed.recordCount)
      throw new Error(`seed "${seed.name}": its stored records gave ${n} of the ${seed.recordCount} records it has (they went or changed while being read)`);
    const { stored: _stored, ...rest } = seed;
    held.set(seed, { ...rest, def: { ...seed.def, records } });
  }
  const swap = (s: SeedNode) => held.get(s) ?? s;
  const byObject = (m: ReadonlyMap<string, readonly SeedNode[]>) => new Map([...m].map(([object, seeds]) => [object, seeds.map(swap)]));
  return {
    ...graph,
    seeds: new Map([...graph.seeds].map(([name, s]) => [name, swap(s)])),
    seedsByObject: byObject(graph.seedsByObject),
    priorSeedsByObject: byObject(graph.priorSeedsByObject),
  };
}
