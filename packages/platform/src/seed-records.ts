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
export interface SeedRecordSource {
  (fields?: readonly string[]): AsyncIterable<readonly SeedRecord[]>;
  /**
   * True when reading it sends nothing to the connection of the transaction it was made for (the
   * records are held, or read on a connection of their own): the seed writer then reads the next
   * part while its last statement runs. Known once the first part is given (a source may decide
   * as it opens); absent: it reads in that transaction.
   */
  readonly detached?: boolean;
}

/**
 * Where a seed's records are read from, in a transaction (`trx`: a stored seed is read by cursor,
 * which lives in one): {@link heldSeedRecords} for a seed held in memory, the platform's
 * `storedSeedRecords` for one whose node has `stored` set.
 */
export type SeedRecordsOf = (trx: Kysely<BvlDatabase>, seed: SeedNode) => SeedRecordSource;

/** A seed held in memory: `seed.def.records` in parts of {@link SEED_CHUNK} (slices, the records themselves not copied). */
export const heldSeedRecords: SeedRecordsOf = (_trx, seed) =>
  Object.assign(
    async function* () {
      const records = seed.def.records;
      for (let start = 0; start < records.length; start += SEED_CHUNK) yield records.slice(start, start + SEED_CHUNK);
    },
    { detached: true },
  );

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

/** No connection of the pool came within the wait a {@link storedSeedReader} was given: it read nothing. */
export class SeedReaderUnavailable extends Error {
  override readonly name = 'SeedReaderUnavailable';
}

/** How long the seed writer waits for a connection of its own to read a stored seed on before reading it in the seed's transaction. */
export const SEED_READER_WAIT_MS = 1_000;

/**
 * A stored seed's records read outside any caller's transaction (the probes after a publish, the
 * seed writer on PostgreSQL): each read opens its own repeatable-read transaction for the cursor
 * and hands the parts out one at a time, fetching the next while the reader holds one (so the
 * database reads and this process parses it meanwhile): at most two parts are held. A reader that
 * stops early closes the transaction. With `waitMs`, a read whose transaction has no connection
 * within it (the pool's all taken) throws {@link SeedReaderUnavailable} before giving anything, and
 * the transaction, once it has one, ends at once. Undefined for a seed held in memory.
 */
export function storedSeedReader(
  db: Kysely<BvlDatabase>,
  tenant: string,
  options: { readonly waitMs?: number } = {},
): (seed: SeedNode) => SeedRecordSource | undefined {
  return (seed) => {
    if (seed.stored === undefined) return undefined;
    const stored = seed.stored as StoredSeed;
    return async function* (fields?: readonly string[]) {
      // A hand-over between the transaction's callback (the producer) and this generator (the reader).
      let give: ((v: IteratorResult<readonly SeedRecord[]>) => void) | undefined;
      let fail: ((e: unknown) => void) | undefined;
      let taken: (() => void) | undefined;
      let stop = false;
      let opened = false;
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
          if (stop) return;
          opened = true;
          for await (const part of storedSeedRecords(trx, tenant, stored)(fields)) {
            // The reader may have stopped while this part was fetched (it had taken the one before).
            if (stop) return;
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
      let timer: NodeJS.Timeout | undefined;
      let gaveUp = false;
      try {
        if (options.waitMs !== undefined) {
          const waitMs = options.waitMs;
          const first = await Promise.race([
            pending,
            new Promise<'late'>((resolve) => {
              timer = setTimeout(() => resolve('late'), waitMs);
            }),
          ]);
          clearTimeout(timer);
          gaveUp = first === 'late' && !opened;
          if (gaveUp) throw new SeedReaderUnavailable(`no connection to read seed "${seed.name}" on came within ${waitMs} ms`);
        }
        for (;;) {
          const r = await pending;
          if (r.done) break;
          pending = next();
          // The producer fetches the next part while this one is read.
          taken!();
          yield r.value;
        }
      } finally {
        clearTimeout(timer);
        stop = true;
        pending.catch(() => undefined);
        taken?.();
        // A transaction still waiting for a connection ends once it has one: not waited for here.
        if (gaveUp) done.catch(() => undefined);
        else await done.catch(() => undefined);
      }
    };
  };
}

/**
 * The seed writer's records on PostgreSQL (`pool`: the platform's pool, the writer's own connection
 * pinned from it): a stored seed's read by {@link storedSeedReader} on a connection of its own (its
 * own repeatable-read transaction, the row of the same content the seed's transaction would read),
 * so the next part is read and parsed while the writer's statements run on its connection
 * (`detached`); when no connection comes within `waitMs` (the publishes running hold them all), in
 * the seed's transaction as {@link tenantSeedRecords} reads it. A held seed: its node's records.
 */
export const pooledSeedRecords =
  (pool: Kysely<BvlDatabase>, tenant: string, waitMs: number = SEED_READER_WAIT_MS): SeedRecordsOf =>
  (trx, seed) => {
    const reader = storedSeedReader(pool, tenant, { waitMs })(seed);
    if (reader === undefined) return heldSeedRecords(trx, seed);
    const source = Object.assign(
      async function* (fields?: readonly string[]) {
        const parts = reader(fields)[Symbol.asyncIterator]();
        let first: IteratorResult<readonly SeedRecord[]>;
        try {
          first = await parts.next();
        } catch (e) {
          if (!(e instanceof SeedReaderUnavailable)) throw e;
          source.detached = false;
          yield* tenantSeedRecords(tenant)(trx, seed)(fields);
          return;
        }
        source.detached = true;
        try {
          for (let r = first; !r.done; r = await parts.next()) yield r.value;
        } finally {
          await parts.return?.();
        }
      },
      { detached: false },
    );
    return source;
  };
