import { type ArtifactSet, type RawArtifact, StoredRecords } from '@bvl/metadata';
import { type Kysely, sql } from 'kysely';
import { BODY_CACHE, rememberBodyHash } from './body-cache.ts';
import type { BvlDatabase, PlatformContext } from './database.ts';
import { showName } from './identifier.ts';
import { type Overlay, type OverlayRow, overlayOf } from './overlay-of.ts';
import { ensureTenant } from './run-tenant.ts';
import { checkScope, type PackageScope, ScopeError } from './scope.ts';
import { storedJson, toStoredArtifact } from './stored-artifact.ts';

/** Rows written per INSERT when staging (keeps each statement well under the parameter limit). */
export const STAGE_BATCH = 200;

/**
 * Body text one staging INSERT carries at most: a large body (a seed of 500,000 records is ~40 MB
 * of JSON) goes in a statement of its own, so no statement binds two of them (PGlite holds each
 * statement's parameters, and their jsonb, in its fixed WebAssembly memory).
 */
export const STAGE_BYTES = 8 * 1024 * 1024;

/** Rows in batches of at most STAGE_BATCH rows and STAGE_BYTES of body text (a heavier body alone). */
export function* stageBatches<T extends { readonly body: string }>(rows: readonly T[]): Generator<T[]> {
  let batch: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (batch.length > 0 && (batch.length >= STAGE_BATCH || bytes + row.body.length > STAGE_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(row);
    bytes += row.body.length;
  }
  if (batch.length > 0) yield batch;
}

/** A staged draft as listed. */
export interface DraftSummary {
  readonly type: string;
  readonly name: string;
  readonly contentHash: string;
  readonly updatedAt: Date;
  /** The draft retires the published artifact of its slot. */
  readonly tombstone: boolean;
}

/**
 * Stages artifacts as drafts of the package: one draft row per type+name, replacing an earlier
 * draft of the same slot (the last of duplicates in the input wins). Accepts an ArtifactSet from
 * collectStack/readSource (its load problems are not stageable and are ignored: the gate reports
 * them) or a list of RawArtifacts. Returns how many drafts were written.
 */
export async function stageDrafts(ctx: PlatformContext, scope: PackageScope, input: ArtifactSet | readonly RawArtifact[]): Promise<{ staged: number }> {
  await ensureTenant(ctx, scope);
  const artifacts = 'artifacts' in input ? input.artifacts : input;
  const slots = new Map<string, RawArtifact>();
  for (const a of artifacts) slots.set(`${a.type}\u0000${a.name}`, a);
  const at = ctx.now().toISOString();
  const rows = [...slots.values()].map((a) => {
    const stored = toStoredArtifact(a);
    // One serialisation: the stable JSON is both what is stored (jsonb keeps no key order) and what is hashed.
    const json = storedJson(stored.body);
    return {
      tenant_id: scope.tenant,
      package: scope.package,
      type: stored.type,
      name: stored.name,
      state: 'draft' as const,
      body: json.text,
      source: JSON.stringify(stored.source),
      content_hash: json.hash,
      version: 0,
      updated_at: at,
      tombstone: false,
    };
  });
  for (const batch of stageBatches(rows)) {
    await ctx.db
      .insertInto('bvl.metadata_items')
      .values(batch)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'package', 'type', 'name', 'state']).doUpdateSet((eb) => ({
          body: eb.ref('excluded.body'),
          source: eb.ref('excluded.source'),
          content_hash: eb.ref('excluded.content_hash'),
          updated_at: eb.ref('excluded.updated_at'),
          tombstone: false,
        })),
      )
      .execute();
  }
  return { staged: rows.length };
}

/**
 * Stages tombstones: drafts that retire artifacts the package has published (a view, dashboard,
 * object, seed, …). The overlay then leaves each out, so references to it dangle in L1 before
 * anything is published; publish retires its metadata (its table or rows only when asked, see
 * PublishOptions.dropData). Throws {@link ScopeError}, staging nothing, when the package publishes
 * no such artifact (another package's artifact is retired through that package).
 */
export async function stageTombstones(
  ctx: PlatformContext,
  scope: PackageScope,
  refs: ReadonlyArray<{ type: string; name: string }>,
): Promise<{ staged: number }> {
  await ensureTenant(ctx, scope);
  const slots = new Map(refs.map((r) => [`${r.type}\u0000${r.name}`, r]));
  if (slots.size === 0) return { staged: 0 };
  const active = await ctx.db
    .selectFrom('bvl.metadata_items')
    .select(['type', 'name', 'package'])
    .where('tenant_id', '=', scope.tenant)
    .where('state', '=', 'active')
    .where((eb) => eb.or([...slots.values()].map((s) => eb.and([eb('type', '=', s.type), eb('name', '=', s.name)]))))
    .execute();
  const owners = new Map(active.map((a) => [`${a.type}\u0000${a.name}`, a.package]));
  for (const [key, r] of slots) {
    const owner = owners.get(key);
    if (owner === undefined)
      throw new ScopeError(
        `nothing to retire: no ${r.type} ${showName(r.name)} is published in tenant ${showName(scope.tenant)} (discard a draft with discardDrafts instead)`,
      );
    if (owner !== scope.package)
      throw new ScopeError(`${r.type} ${showName(r.name)} is published by package ${showName(owner)}; retire it through that package`);
  }
  const at = ctx.now().toISOString();
  await ctx.db
    .insertInto('bvl.metadata_items')
    .values(
      [...slots.values()].map((r) => ({
        tenant_id: scope.tenant,
        package: scope.package,
        type: r.type,
        name: r.name,
        state: 'draft' as const,
        body: '{}',
        source: '{}',
        content_hash: 'tombstone',
        version: 0,
        updated_at: at,
        tombstone: true,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'package', 'type', 'name', 'state']).doUpdateSet((eb) => ({
        body: eb.ref('excluded.body'),
        source: eb.ref('excluded.source'),
        content_hash: eb.ref('excluded.content_hash'),
        updated_at: eb.ref('excluded.updated_at'),
        tombstone: true,
      })),
    )
    .execute();
  return { staged: slots.size };
}

/** The package's drafts, sorted by type and name. */
export async function listDrafts(ctx: PlatformContext, scope: PackageScope): Promise<DraftSummary[]> {
  checkScope(scope);
  const rows = await ctx.db
    .selectFrom('bvl.metadata_items')
    .select(['type', 'name', 'content_hash', 'updated_at', 'tombstone'])
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .where('state', '=', 'draft')
    .orderBy('type')
    .orderBy('name')
    .execute();
  return rows.map((r) => ({ type: r.type, name: r.name, contentHash: r.content_hash, updatedAt: new Date(r.updated_at), tombstone: r.tombstone }));
}

/** Discards the package's drafts (all, or only the listed slots); returns how many were removed. */
export async function discardDrafts(ctx: PlatformContext, scope: PackageScope, only?: ReadonlyArray<{ type: string; name: string }>): Promise<number> {
  checkScope(scope);
  if (only && only.length === 0) return 0;
  let q = ctx.db.deleteFrom('bvl.metadata_items').where('tenant_id', '=', scope.tenant).where('package', '=', scope.package).where('state', '=', 'draft');
  if (only) q = q.where((eb) => eb.or(only.map((s) => eb.and([eb('type', '=', s.type), eb('name', '=', s.name)]))));
  const result = await q.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A draft a publish holds: its row, locked until the publish ends, and the content it verified. */
export interface LockedDraft {
  readonly id: string;
  readonly type: string;
  readonly name: string;
  readonly contentHash: string;
  readonly tombstone: boolean;
}

/** How often {@link lockDrafts} tries again while another caller is writing one of the drafts, and how long it waits between tries. */
export const DRAFT_LOCK_TRIES = 100;
const DRAFT_LOCK_PAUSE_MS = 10;

/**
 * Locks the package's drafts for the caller's transaction (a publish) and returns them: the draft
 * set it verifies and promotes. While the lock is held, a restage or discard of a locked draft
 * waits for the publish, then finds the draft gone (promoted): a restage writes a new draft, a
 * discard removes nothing. A draft staged into a new slot meanwhile is not locked, not seen, and
 * stays a draft.
 *
 * A draft another caller is writing at that moment (an uncommitted stage or discard: a statement,
 * milliseconds) is not waited for row by row — a stage writing several drafts and this lock could
 * each hold a row the other waits for — but skipped: the locks taken are let go (a savepoint) and
 * the whole set is tried again a moment later, up to {@link DRAFT_LOCK_TRIES} times. A draft still
 * being written after that stays out of this publish, for the next round.
 */
export async function lockDrafts(trx: Kysely<BvlDatabase>, scope: PackageScope): Promise<LockedDraft[]> {
  const drafts = () =>
    trx.selectFrom('bvl.metadata_items').where('tenant_id', '=', scope.tenant).where('package', '=', scope.package).where('state', '=', 'draft');
  for (let tries = 1; ; tries++) {
    await sql`savepoint bvl_drafts`.execute(trx);
    const rows = await drafts().select(['id', 'type', 'name', 'content_hash', 'tombstone']).orderBy('id').forUpdate().skipLocked().execute();
    const held = new Set(rows.map((r) => r.id));
    const busy = tries < DRAFT_LOCK_TRIES && (await drafts().select('id').execute()).some((r) => !held.has(r.id));
    if (!busy) {
      await sql`release savepoint bvl_drafts`.execute(trx);
      return rows.map((r) => ({ id: r.id, type: r.type, name: r.name, contentHash: r.content_hash, tombstone: r.tombstone }));
    }
    await sql`rollback to savepoint bvl_drafts`.execute(trx);
    await sql`release savepoint bvl_drafts`.execute(trx);
    await new Promise((r) => setTimeout(r, DRAFT_LOCK_PAUSE_MS));
  }
}

/**
 * When a seed's body is read in parts (issue 21: memory flat in the row count): a seed body stored
 * in more than `bytes` (its stored, compressed size: known without reading it) is never sent as one
 * JSON text. It comes through a cursor, `part` values a fetch, each parsed on its own: its top-level
 * members one by one, and the elements of each record list (`records`, `data` or `rows`) one by
 * one — so the process never holds the list's text and its parsed records at once, and the
 * database never builds the whole text either. Tests lower `bytes` to run both paths on the same inputs.
 *
 * `store`: a seed body stored in more than that is, for a caller that asks (the publish, its gate and
 * its writer: {@link ReadOverlayOptions.storedSeeds}), not read at all but left in the store and its
 * records read part by part where they are judged and written — so what a publish holds stops
 * growing with the row count past it. Below it the records are read once and held: reading them
 * part by part costs a publish another read of them for the gate's and again for the writer's
 * (a 100,000-row seed published ×1.6 slower in the seed bench), and held they take ~230 bytes a
 * record of seven fields. The size is the stored, compressed one (known without reading the body):
 * 4 MB is about 200,000 records of the seed bench's seven fields (16.7 MB of JSON a 100,000 stored
 * in 2 MB), fewer of values that compress less — so ~45 MB held at most. Tests lower it.
 */
export const SEED_STREAM = { bytes: 256 * 1024, part: 5_000, store: 4 * 1024 * 1024 };

/**
 * Seed bodies read that way in this process (whole in parts, or without their records: see
 * {@link ReadOverlayOptions.storedSeeds}), the parts fetched, and the record lists left in the store
 * (`stored`): what a test reads to know the path ran.
 */
export const seedStreamStats = { bodies: 0, parts: 0, stored: 0 };

/** Options of {@link readOverlayRows}. */
export interface ReadOverlayOptions {
  /**
   * A seed body stored in more than {@link SEED_STREAM}.store comes without its record list (issue 21: memory flat
   * in the row count): in its place a StoredRecords (@bvl/metadata) holding the list's length and
   * the row's {@link StoredSeed}, so the graph makes it a stored seed (its node's `stored`) whose
   * records are read by {@link storedSeedRecords} — in the caller's transaction: `db` must be one.
   * A list the graph would judge invalid as a whole (not a list, or one with a value that is not a
   * record) is read whole, in parts, as without this option. Default false: every body whole.
   */
  readonly storedSeeds?: boolean;
}

/** Tests only: what runs between the query of the rows and the read of a body in parts (to interleave a stage there). */
export const seedStreamHooks: { beforeParts?: (() => Promise<void>) | undefined } = {};

/** The keys a seed body may hold its records under (see the graph's addSeed: records ?? data ?? rows). */
const RECORD_KEYS = ['records', 'data', 'rows'];

/** A stored row as {@link readOverlayRows} selects it; a body to read in parts comes as null, `parts` true. */
interface SelectedRow {
  readonly type: string;
  readonly name: string;
  readonly source: unknown;
  readonly state: OverlayRow['state'];
  readonly package: string;
  readonly tombstone: boolean;
  readonly content_hash: string;
  readonly body: unknown;
  readonly parts: boolean;
  /** A large seed body a caller that asks for stored seeds leaves in the store (over SEED_STREAM.store). */
  readonly store: boolean;
}

/**
 * The rows an overlay is built from: the tenant's active items and the drafts of `pkg` (all
 * packages' when undefined). Bodies this process already holds (by content hash) are not sent
 * again: the query returns them only for hashes it does not know, so a repeated verify reads
 * little more than names and hashes; and a body several rows share (a draft identical to its
 * published item) is sent and parsed once, the rows holding one value (bodies are never mutated).
 * A large seed body is read in parts (see {@link SEED_STREAM}); it is the same value.
 */
export async function readOverlayRows(
  db: Kysely<BvlDatabase>,
  tenant: string,
  pkg: string | undefined,
  options: ReadOverlayOptions = {},
): Promise<OverlayRow[]> {
  // One snapshot for the rows and the bodies read after them (in parts, or again by hash): outside a
  // caller's transaction, a stage committed between the two would replace a draft the rows name, and
  // its body would be read from no row. Inside one, the caller's snapshot (the publish locks its drafts).
  if (!db.isTransaction) {
    if (options.storedSeeds) throw new Error('readOverlayRows leaves stored seeds to be read in the same transaction: it needs one');
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((trx) => readOverlayRows(trx, tenant, pkg));
  }
  const cached = BODY_CACHE.of(tenant);
  const known = [...cached.keys()];
  // One body per content hash: a republished seed's draft and its published item hold the same
  // body (a replay of a million records would otherwise be read and parsed twice, and held twice).
  const skip = sql`content_hash = any(${known}::text[]) or row_number() over (partition by content_hash order by state, package, type, name) > 1`;
  // Decided by the stored size (no read of the body) before its kind (one read, of a large seed body
  // only, and not of a row skipped: each read of the kind decompresses the whole body).
  const big = sql`type = 'seed' and pg_column_size(body) > ${SEED_STREAM.bytes}`;
  const scoped = pkg === undefined ? sql`true` : sql`(state = 'active' or package = ${pkg})`;
  const rows = (
    await sql<SelectedRow>`
      select type, name, source, state, package, tombstone, content_hash,
        case when skip or parts then null else body end as body, not skip and parts as parts, not skip and parts and size > ${SEED_STREAM.store} as store
      from (select s.*, case when not s.skip and s.big then jsonb_typeof(s.body) = 'object' else false end as parts
            from (select m.type, m.name, m.source, m.state, m.package, m.tombstone, m.content_hash, m.body, ${skip} as skip, ${big} as big,
                    pg_column_size(m.body) as size
                  from bvl.metadata_items m where tenant_id = ${tenant} and ${scoped}) as s offset 0) as t
      order by type, name, package`.execute(db)
  ).rows;
  const read = new Map<string, unknown>();
  for (const r of rows) if (r.body !== null) read.set(r.content_hash, r.body);
  // Large bodies are not kept in the body cache (a seed's record list would stay in memory).
  const large = new Set<string>();
  for (const r of rows) {
    if (!r.parts) continue;
    large.add(r.content_hash);
    await seedStreamHooks.beforeParts?.();
    // A body whose row is gone (a caller's read-committed transaction that does not lock its rows) is read again by hash, below.
    const body = (options.storedSeeds && r.store ? await readBodyStored(db, tenant, r) : undefined) ?? (await readBodyParts(db, tenant, r));
    if (body !== undefined) read.set(r.content_hash, body);
  }
  const out = rows.map((r) => ({
    type: r.type,
    name: r.name,
    package: r.package,
    state: r.state,
    tombstone: r.tombstone,
    source: r.source,
    contentHash: r.content_hash,
    body: r.body !== null ? r.body : (read.get(r.content_hash) ?? cached.get(r.content_hash)),
  }));
  for (const r of out) if (r.body !== undefined && !large.has(r.contentHash)) BODY_CACHE.put(cached, r.contentHash, r.body);
  for (const r of out) rememberBodyHash(r.body, r.contentHash);
  // A body evicted while the query ran (another call filled the cache): read it again, by hash.
  const lost = [...new Set(out.filter((r) => r.body === undefined).map((r) => r.contentHash))];
  if (lost.length > 0) {
    const found = await db
      .selectFrom('bvl.metadata_items')
      .select(['content_hash', 'body'])
      .where('tenant_id', '=', tenant)
      .where('content_hash', 'in', lost)
      .execute();
    const byHash = new Map(found.map((f) => [f.content_hash, f.body]));
    for (const r of out)
      if (r.body === undefined) {
        r.body = byHash.get(r.contentHash);
        rememberBodyHash(r.body, r.contentHash);
      }
  }
  return out;
}

/**
 * A large seed body without its record list (see {@link ReadOverlayOptions.storedSeeds}): its other
 * members as they are (small), the list (the member the graph reads: `records`, else `data`, else
 * `rows`) replaced by a StoredRecords of its length and the row's {@link StoredSeed}. Undefined when
 * the row is gone, or its list is not a list of records only (then read whole, so the graph judges it).
 */
async function readBodyStored(db: Kysely<BvlDatabase>, tenant: string, row: SelectedRow): Promise<Record<string, unknown> | undefined> {
  // The body detoasted once (an array element is held plain), each step in a subquery of its own:
  // every other use of the stored column would decompress all of it again (a seed of 300,000
  // records is 50 MB of jsonb: a dozen such reads took 9 s), and a member test (`?`, `@>`) copies
  // nothing. `strict $[*] ? (…)` walks the list without a row per record (jsonb_array_elements
  // spilled them all to disk).
  const present = (key: string) => sql`b.body ? ${key} and not b.body @> ${JSON.stringify({ [key]: null })}::jsonb`;
  const found = (
    await sql<{ key: string; n: number | string; rest: Record<string, unknown> }>`
      select c.key, jsonb_array_length(k.list) as n, k.rest
      from (select (array[m.body])[1] as body from bvl.metadata_items m
            where m.tenant_id = ${tenant} and m.package = ${row.package} and m.type = ${row.type} and m.name = ${row.name}
              and m.state = ${row.state} and m.content_hash = ${row.content_hash} offset 0) as b
      cross join lateral (select case when ${present('records')} then 'records' when ${present('data')} then 'data'
                                      when ${present('rows')} then 'rows' end as key offset 0) as c
      cross join lateral (select b.body -> c.key as list, b.body - c.key as rest offset 0) as k
      where jsonb_typeof(b.body) = 'object' and jsonb_typeof(k.list) = 'array'
        and not jsonb_path_exists(k.list, 'strict $[*] ? (@.type() != "object")')`.execute(db)
  ).rows[0];
  if (!found) return undefined;
  const handle: StoredSeed = { package: row.package, name: row.name, state: row.state, contentHash: row.content_hash };
  const records = new StoredRecords(Number(found.n), handle);
  // The member at its place in the body: the store orders an object's keys shorter first, then by their bytes.
  const body: Record<string, unknown> = {};
  let placed = false;
  const before = (k: string) => k.length > found.key.length || (k.length === found.key.length && Buffer.compare(Buffer.from(k), Buffer.from(found.key)) > 0);
  for (const [k, v] of Object.entries(found.rest)) {
    if (!placed && before(k)) {
      body[found.key] = records;
      placed = true;
    }
    body[k] = v;
  }
  if (!placed) body[found.key] = records;
  seedStreamStats.bodies++;
  seedStreamStats.stored++;
  return body;
}

/**
 * A seed body read in parts: one cursor over its top-level members (`jsonb_each`, in the order the
 * store keeps them — the order of its JSON text), a record list's elements each a row of its own
 * (`jsonb_array_elements … with ordinality`), {@link SEED_STREAM}.part rows a fetch, each value
 * parsed on its own, the body rebuilt member by member: the same value as the whole body parsed.
 * In the transaction the row was read in (its snapshot, see {@link readOverlayRows}); in a caller's
 * read-committed transaction the row (found by its slot and content hash) may be gone: undefined then.
 */
async function readBodyParts(db: Kysely<BvlDatabase>, tenant: string, row: SelectedRow): Promise<Record<string, unknown> | undefined> {
  const read = async (trx: Kysely<BvlDatabase>): Promise<Record<string, unknown> | undefined> => {
    await sql`declare bvl_seed_parts no scroll cursor for
      select kv.at, kv.key, e.n, case when e.n is null then kv.value else e.value end as value
      from (select body from bvl.metadata_items where tenant_id = ${tenant} and package = ${row.package}
            and type = ${row.type} and name = ${row.name} and state = ${row.state} and content_hash = ${row.content_hash}) as m
      cross join lateral jsonb_each(m.body) with ordinality as kv(key, value, at)
      left join lateral jsonb_array_elements(case when kv.key = any(${RECORD_KEYS}::text[]) and jsonb_typeof(kv.value) = 'array' then kv.value end)
        with ordinality as e(value, n) on true`.execute(trx);
    const body: Record<string, unknown> = {};
    let members = 0;
    let at = 0;
    let list: unknown[] | undefined;
    try {
      for (;;) {
        const part = (
          await sql<{
            at: string | number;
            key: string;
            n: string | number | null;
            value: unknown;
          }>`fetch ${sql.raw(String(SEED_STREAM.part))} from bvl_seed_parts`.execute(trx)
        ).rows;
        seedStreamStats.parts++;
        for (const p of part) {
          // Members and elements come in their order (no sort asked: the scans keep it); out of order would be another value.
          if (Number(p.at) < at) throw new Error(`seed ${row.name}: member "${p.key}" came out of order`);
          at = Number(p.at);
          if (p.n === null) {
            body[p.key] = p.value;
            list = undefined;
          } else {
            if (Number(p.n) === 1) {
              list = [];
              body[p.key] = list;
            }
            if (list === undefined || Number(p.n) !== list.length + 1) throw new Error(`seed ${row.name}: record ${p.n} of "${p.key}" came out of order`);
            list.push(p.value);
          }
          members++;
        }
        if (part.length < SEED_STREAM.part) break;
      }
    } finally {
      await sql`close bvl_seed_parts`.execute(trx);
    }
    if (members === 0) return undefined;
    seedStreamStats.bodies++;
    return body;
  };
  return read(db);
}

/** Where a stored seed is: its row's slot and content (the body a verification read). */
export interface StoredSeed {
  readonly package: string;
  readonly name: string;
  readonly state: OverlayRow['state'];
  readonly contentHash: string;
}

/** How {@link storedSeedRecords} reads. */
export interface StoredSeedReadOptions {
  /**
   * Ask for the next part while the caller holds this one (two parts held, one of them in the
   * connection's buffers): only for a caller that sends nothing else on `trx` while it reads (a
   * lint); a writer's statement would queue behind the fetch, and one that fails would fail it.
   */
  readonly ahead?: boolean;
}

let seedCursors = 0;

/**
 * A record of the projected `fields` (see {@link storedSeedRecords}) from their JSON texts (`f0`, `f1`, …):
 * the fields the record has, each the value its whole record parses to, a plain object as JSON.parse
 * makes (a field named `__proto__` its own property, as there).
 */
function projected(fields: readonly string[], row: Record<string, string | null>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++) {
    const text = row[`f${i}`];
    if (text === null || text === undefined) continue;
    const f = fields[i]!;
    const value: unknown = JSON.parse(text);
    if (f === '__proto__') Object.defineProperty(record, f, { value, enumerable: true, writable: true, configurable: true });
    else record[f] = value;
  }
  return record;
}

/**
 * A stored seed's records read by cursor, `part` records a fetch, each parsed on its own, yielded
 * part by part in record order (`jsonb_array_elements … with ordinality` over the list the graph
 * reads: `records`, else `data`, else `rows`): what a streamed lint (graph-lint's lintGraphStreamed)
 * judges instead of the records held whole. Each call of the source reads the seed again, in `trx`
 * (a transaction: its snapshot, and a cursor lives in one); a row gone or changed yields nothing.
 * The slot's row with the handle's content is read, of the handle's state first, else of the other:
 * the same content, so the seed writer, after the publish committed and its draft row became the
 * active one, reads the records the gate judged (a row since replaced by other content: nothing).
 * Given `fields` (a projection: graph-lint's SeedRecordSource), each record holds only those of its
 * fields it has, each value as the whole record's: the database sends a few short values a record.
 */
export function storedSeedRecords(
  trx: Kysely<BvlDatabase>,
  tenant: string,
  seed: StoredSeed,
  part: number = SEED_STREAM.part,
  options: StoredSeedReadOptions = {},
): (fields?: readonly string[]) => AsyncIterable<readonly Record<string, unknown>[]> {
  if (!trx.isTransaction) throw new Error('storedSeedRecords reads by cursor: it needs a transaction');
  return async function* (fields?: readonly string[]) {
    const cursor = `bvl_seed_records_${++seedCursors}`;
    const list = (key: string) => sql`nullif(m.body -> ${key}, 'null'::jsonb)`;
    // A projection: each field's value as its JSON text (null when the record lacks the field), a column each.
    const values = fields === undefined ? sql`e.value` : sql.join([sql`null`, ...fields.map((f, i) => sql`(e.value -> ${f})::text as ${sql.id(`f${i}`)}`)]);
    await sql`declare ${sql.raw(cursor)} no scroll cursor for
      select e.n, ${values}
      from (select body from bvl.metadata_items where tenant_id = ${tenant} and package = ${seed.package}
            and type = 'seed' and name = ${seed.name} and content_hash = ${seed.contentHash}
            order by state = ${seed.state} desc limit 1) as m
      cross join lateral jsonb_array_elements(coalesce(${list('records')}, ${list('data')}, ${list('rows')})) with ordinality as e(value, n)`.execute(trx);
    let n = 0;
    const fetchPart = () => sql<{ n: string | number; value: Record<string, unknown> }>`fetch ${sql.raw(String(part))} from ${sql.raw(cursor)}`.execute(trx);
    let pending: ReturnType<typeof fetchPart> | undefined;
    try {
      for (;;) {
        const rows = (await (pending ?? fetchPart())).rows;
        pending = undefined;
        seedStreamStats.parts++;
        if (options.ahead && rows.length === part) {
          // The next part is asked for now and the request sent before this one is handed over
          // (a turn of the event loop lets the query reach the socket): the database reads it
          // while the caller judges this one.
          pending = fetchPart();
          pending.catch(() => undefined);
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        const records = new Array<Record<string, unknown>>(rows.length);
        for (let i = 0; i < rows.length; i++) {
          // Elements come in their order (the scan keeps it); out of order the indices would be another seed's.
          if (Number(rows[i]!.n) !== ++n) throw new Error(`seed ${seed.name}: record ${rows[i]!.n} came out of order`);
          records[i] = fields === undefined ? rows[i]!.value : projected(fields, rows[i] as unknown as Record<string, string | null>);
        }
        if (records.length > 0) yield records;
        if (rows.length < part) break;
      }
    } finally {
      // A part asked for ahead and not taken (the caller stopped): it ends before the cursor closes.
      if (pending) await pending.catch(() => undefined);
      await sql`close ${sql.raw(cursor)}`.execute(trx);
    }
  };
}

/**
 * The overlay (see {@link overlayOf}): every active item of the tenant ⊕ the drafts of
 * `scope.package` (of every package when it is omitted) — exactly what publishing that package
 * would gate and promote. Feed it to `verify(published, drafts)`.
 */
export async function readOverlay(ctx: PlatformContext, scope: { readonly tenant: string; readonly package?: string | undefined }): Promise<Overlay> {
  checkScope(scope);
  return overlayOf(await readOverlayRows(ctx.db, scope.tenant, scope.package), scope.package);
}
