import type { SeedNode } from '@bvl/metadata';
import type { Kysely } from 'kysely';
import type { BvlDatabase } from './database.ts';
import { type StoredSeed, storedSeedRecords } from './run-drafts.ts';
import { SEED_CHUNK } from './seed-limits.ts';

/** One seed record as a source yields it. */
export type SeedRecord = Readonly<Record<string, unknown>>;

/**
 * A seed's records read part by part, in record order from record 0 (graph-lint's
 * `SeedRecordSource` shape: given `fields`, a record may hold only those of its fields); each call
 * reads them again.
 */
export type SeedRecordSource = (fields?: readonly string[]) => AsyncIterable<readonly SeedRecord[]>;

/**
 * Where a seed's records are read from, in a transaction (`trx`: a stored seed is read by cursor,
 * which lives in one): {@link heldSeedRecords} for a seed held in memory, the platform's
 * `storedSeedRecords` for one whose node has `stored` set.
 */
export type SeedRecordsOf = (trx: Kysely<BvlDatabase>, seed: SeedNode) => SeedRecordSource;

/** A seed held in memory: `seed.def.records` in parts of {@link SEED_CHUNK} (slices, the records themselves not copied). */
export const heldSeedRecords: SeedRecordsOf = (_trx, seed) =>
  async function* () {
    const records = seed.def.records;
    for (let start = 0; start < records.length; start += SEED_CHUNK) yield records.slice(start, start + SEED_CHUNK);
  };

/** The records of the seeds of `tenant`: a stored seed's (its node's `stored`, a {@link StoredSeed}) by cursor, a held one's from its node. */
export const tenantSeedRecords =
  (tenant: string): SeedRecordsOf =>
  (trx, seed) =>
    seed.stored !== undefined ? storedSeedRecords(trx, tenant, seed.stored as StoredSeed) : heldSeedRecords(trx, seed);

/** A seed's source gave other records than its node says: the records changed or went while being read. */
export class SeedSourceError extends Error {
  override readonly name = 'SeedSourceError';
}

/**
 * The records of `source` regrouped into chunks of `size` records (the last may be shorter),
 * each with the index of its first record in the seed, whatever part sizes the source yields; the
 * chunks' boundaries are those of the records held whole, so what a chunk decides is the same.
 * Holds at most one chunk and one part. Throws {@link SeedSourceError} when the source yields
 * more or fewer records than `count` (a stored seed gone or changed while read), or a part is not a list.
 */
export async function* chunksOf(
  source: SeedRecordSource,
  count: number,
  size: number,
  seedName: string,
): AsyncGenerator<{ readonly start: number; readonly records: readonly SeedRecord[] }> {
  let buffer: SeedRecord[] = [];
  let start = 0;
  let read = 0;
  for await (const part of source()) {
    if (!Array.isArray(part)) throw new SeedSourceError(`seed "${seedName}": its records source gave a part that is not a list`);
    read += part.length;
    if (read > count) throw new SeedSourceError(`seed "${seedName}": its records source gave more than the ${count} records the seed has`);
    // A part that is exactly a chunk at its boundary passes as it is (the held records' slices).
    if (buffer.length === 0 && part.length === size) {
      yield { start, records: part };
      start += size;
      continue;
    }
    let at = 0;
    while (at < part.length) {
      const take = Math.min(size - buffer.length, part.length - at);
      for (let i = 0; i < take; i++) buffer.push(part[at + i]!);
      at += take;
      if (buffer.length === size) {
        yield { start, records: buffer };
        start += size;
        buffer = [];
      }
    }
  }
  if (read < count)
    throw new SeedSourceError(
      `seed "${seedName}": its records source ended after ${read} of the ${count} records the seed has (its stored records went or changed while being read)`,
    );
  if (buffer.length > 0) yield { start, records: buffer };
}

/**
 * A stored seed's records read outside any caller's transaction (the probes after a publish): each
 * read opens its own repeatable-read transaction for the cursor and hands the parts out one at a
 * time (the next part is fetched only when the reader asks for it), so no more than a part is held.
 * A reader that stops early closes the transaction. Undefined for a seed held in memory.
 */
export function storedSeedReader(db: Kysely<BvlDatabase>, tenant: string): (seed: SeedNode) => SeedRecordSource | undefined {
  return (seed) => {
    if (seed.stored === undefined) return undefined;
    const stored = seed.stored as StoredSeed;
    return async function* (fields?: readonly string[]) {
      // A hand-over between the transaction's callback (the producer) and this generator (the reader).
      let give: ((v: IteratorResult<readonly SeedRecord[]>) => void) | undefined;
      let fail: ((e: unknown) => void) | undefined;
      let taken: (() => void) | undefined;
      let stop = false;
      const next = () =>
        new Promise<IteratorResult<readonly SeedRecord[]>>((resolve, reject) => {
          give = resolve;
          fail = reject;
        });
      let pending = next();
      const done = db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          for await (const part of storedSeedRecords(trx, tenant, stored)(fields)) {
            const wait = new Promise<void>((resolve) => {
              taken = resolve;
            });
            give!({ value: part, done: false });
            await wait;
            if (stop) return;
          }
        })
        .then(
          () => give!({ value: undefined, done: true }),
          (e) => fail!(e),
        );
      try {
        for (;;) {
          const r = await pending;
          if (r.done) break;
          pending = next();
          yield r.value;
          taken!();
        }
      } finally {
        stop = true;
        pending.catch(() => undefined);
        taken?.();
        await done.catch(() => undefined);
      }
    };
  };
}
