import type { ArtifactSet, SeedNode } from '@bvl/metadata';
import { type Verification, verifyStreamed } from '@bvl/verify';
import type { Kysely } from 'kysely';
import type { BvlDatabase } from './database.ts';
import { type StoredSeed, storedSeedRecords } from './run-drafts.ts';

/**
 * The records of the stored seeds of a graph built from rows readOverlayRows read with
 * `storedSeeds` (a node whose `stored` is a {@link StoredSeed}), read by cursor in `trx` — the
 * transaction the rows were read in, the next part asked for while the lint judges one (it sends
 * nothing else on `trx` meanwhile); undefined for a seed held in memory (its node's records).
 */
export function storedSeedSources(trx: Kysely<BvlDatabase>, tenant: string): (seed: SeedNode) => ReturnType<typeof storedSeedRecords> | undefined {
  return (seed) => (seed.stored === undefined ? undefined : storedSeedRecords(trx, tenant, seed.stored as StoredSeed, undefined, { ahead: true }));
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
