import { type BuildIssue, makeIssue, sortIssues } from '@bvl/build-issue';
import { type Graph, redraftedContainers } from '@bvl/metadata';
import { type Checked, verify } from '@bvl/verify';
import { type Kysely, sql } from 'kysely';
import type { BvlDatabase, PlatformContext } from './database.ts';
import { describeDbError, isConnectionLost, sqlState } from './describe-db-error.ts';
import { diffSchema } from './diff-schema.ts';
import { type OverlayRow, overlayOf } from './overlay-of.ts';
import { planTables } from './plan-tables.ts';
import { type AfterStep, applySchemaSteps, readExistingSchema } from './run-ddl.ts';
import { lockDrafts, readOverlayRows } from './run-drafts.ts';
import { describeSessions, LockTimeoutError, packageLockKey, publishApplicationName, takeAdvisoryLock, tenantLockKey } from './run-package-lock.ts';
import { checkRepublish } from './run-republish-checks.ts';
import { applySeeds, type SeedApplied } from './run-seeds.ts';
import { ensureOwnSchema, ensureTenant, ForeignSchemaError } from './run-tenant.ts';
import type { PackageScope } from './scope.ts';
import { fromStoredArtifact } from './stored-artifact.ts';

/** Options of {@link publishPackage}. */
export interface PublishOptions {
  /** Seeds whose `env` list lacks this are not applied (default `dev`). */
  readonly env?: string;
  /** Called after each DDL step inside the transaction; tests throw here to prove a crash rolls back. */
  readonly afterDdlStep?: AfterStep;
  /**
   * What a tombstone retires besides its metadata. Default false: a retired object keeps its table
   * and a retired seed keeps its rows. True: a retired object's table is dropped, and a retired
   * seed's rows (matched by its single-field natural key) are deleted.
   */
  readonly dropData?: boolean;
  /**
   * Proceed with a republish that loses or changes rows already there (a type or cardinality
   * change, an option removed while rows hold it): the rows are converted (see convertColumn) and
   * each change is reported as a `data_changed_on_republish` warning. Default false: such a
   * publish is refused with `data_loss_on_republish`, the rows affected counted.
   */
  readonly allowDataChange?: boolean;
  /** How long to wait for the package's or tenant's lock held by another publish (default LOCK_WAIT_MS). */
  readonly lockWaitMs?: number;
  /** How long DDL waits for a table a reader holds (default PUBLISH_LOCK_TIMEOUT_MS). */
  readonly ddlLockWaitMs?: number;
  /**
   * Test hook, awaited inside the transaction at each point a concurrent caller could act (see
   * {@link PublishPoint}); tests stage, replace or discard drafts here to prove the publish
   * promotes exactly what it verified.
   */
  readonly interleave?: (point: PublishPoint, trx: Kysely<BvlDatabase>) => Promise<void>;
}

/** Where {@link PublishOptions.interleave} is called: `gated` once the draft set is read and verified, `promoted` once it is inserted as active (before the drafts are removed). */
export type PublishPoint = 'gated' | 'promoted';

/** An artifact a publish retired (a tombstone), and what happened to its data. */
export interface RetiredItem {
  readonly type: string;
  readonly name: string;
  /** `dropped` table, `deleted` n seed rows, or `kept` (no dropData, or rows not matchable by key). */
  readonly data: 'none' | 'kept' | 'dropped' | { readonly deleted: number };
}

/** How long a publish's DDL waits for a table lock held by a reader before it gives up and rolls back. */
export const PUBLISH_LOCK_TIMEOUT_MS = 10_000;

/** A promoted item and its new version. */
export interface PublishedItem {
  readonly type: string;
  readonly name: string;
  readonly version: number;
}

/**
 * What a publish did. `published`: the gate passed, metadata promoted and tables created/altered in
 * one transaction, then seeds applied (reported honestly in `seedApplied`, never failing the
 * publish); `issues` are the gate's warnings. `refused`: the gate found L1/L2 errors (or names the
 * database cannot hold); nothing changed, `issues` lists everything the gate found. `nothing_to_publish`:
 * no drafts. `failed`: the transaction rolled back (the previous published state is intact); `error` says why.
 */
export type PublishResult =
  | {
      readonly outcome: 'published';
      readonly schema: string;
      readonly published: PublishedItem[];
      readonly ddlSteps: number;
      readonly graph: Graph;
      readonly seedApplied: SeedApplied;
      readonly issues: BuildIssue[];
      readonly checked: Checked;
      /** Artifacts retired by tombstones. */
      readonly retired: RetiredItem[];
      /** The publish log row (probe results are recorded against it). */
      readonly publishId: number;
      /** Every artifact the package publishes now (what its probes cover), sorted by type and name. */
      readonly packageArtifacts: ReadonlyArray<{ readonly type: string; readonly name: string }>;
    }
  | { readonly outcome: 'refused'; readonly schema: string; readonly issues: BuildIssue[]; readonly checked: Checked }
  | { readonly outcome: 'nothing_to_publish'; readonly schema: string }
  | { readonly outcome: 'failed'; readonly schema: string; readonly error: string; readonly cause: unknown };

type Promotion =
  | { kind: 'nothing' }
  | {
      kind: 'done';
      published: PublishedItem[];
      retired: RetiredItem[];
      steps: number;
      graph: Graph;
      seeds: Set<string>;
      issues: BuildIssue[];
      checked: Checked;
      packageArtifacts: Array<{ type: string; name: string }>;
    };

class Refusal extends Error {
  constructor(
    readonly issues: BuildIssue[],
    readonly checked: Checked,
  ) {
    super('refused');
  }
}

/**
 * Publishes every draft of the package, behind the gate. ONE transaction holds the metadata and the
 * DDL: it takes an advisory lock on tenant+package (concurrent publishes of a package run one after
 * the other; the second finds nothing left to publish), reads the overlay (the tenant's active items
 * ⊕ the package's drafts, see overlayOf), and runs the gate on exactly that graph: L1 + L2 through
 * `verify`, the function `bvl verify` and verify_build run, plus the names the database must hold.
 * Any error refuses the publish with every issue found; no caller can skip it. Otherwise it promotes
 * the drafts, creates/alters one table per object, and logs the publish. A crash anywhere in it rolls
 * everything back. Seeds run after the commit (see applySeeds: atomic per record), and their report
 * is added to the log.
 *
 * Ownership: the transaction also holds a tenant-wide lock, so two packages publishing the same
 * object at once are decided one after the other (the second sees the first's ownership and is
 * refused) and a tenant's tables (its platform tables included) are created by one publish at a
 * time. Lock waits are bounded (`lockWaitMs`); a timeout names the session holding the lock. The
 * tenant schema must carry bvl's mark. A republish that would lose or change existing rows, or add
 * a constraint they break, is refused with the rows counted (see checkRepublish), unless
 * `allowDataChange` lets the data changes through.
 *
 * After the commit the outcome stays `published` whatever happens: a database failure during the
 * seeds stops them (the seed it hit rolled back, the rest not run) and adds a `publish_interrupted`
 * error; the publish log row, written in the transaction with `seed_applied: {"pending": true}`, gets
 * the seed report (through the pool when the pinned connection was lost).
 */
export async function publishPackage(ctx: PlatformContext, scope: PackageScope, options: PublishOptions = {}): Promise<PublishResult> {
  const schema = await ensureTenant(ctx, scope);
  let promotion: Promotion;
  let logId: number | undefined;
  try {
    promotion = await ctx.db.transaction().execute(async (trx) => {
      const p = await promote(trx, ctx.now(), scope, options);
      if (p.kind === 'done') {
        const log = await trx
          .insertInto('bvl.publish_log')
          .values({
            tenant_id: scope.tenant,
            package: scope.package,
            outcome: 'published',
            published: JSON.stringify({ published: p.published, retired: p.retired }),
            seed_applied: JSON.stringify({ pending: true }),
            published_at: ctx.now().toISOString(),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        logId = Number(log.id);
      }
      return p;
    });
  } catch (e) {
    if (e instanceof Refusal) return { outcome: 'refused', schema, issues: e.issues, checked: e.checked };
    if (e instanceof LockTimeoutError || e instanceof ForeignSchemaError)
      return { outcome: 'failed', schema, error: `nothing was published: ${e.message}`, cause: e };
    let error = `publish rolled back, the previous published state is unchanged: ${describeDbError(e)}`;
    // A table of the tenant stayed locked by a reader past the DDL's lock timeout: say who.
    if (sqlState(e) === '55P03') error += `; ${await tableLockHolders(ctx, schema, options.ddlLockWaitMs ?? PUBLISH_LOCK_TIMEOUT_MS)}`;
    return { outcome: 'failed', schema, error, cause: e };
  }
  if (promotion.kind === 'nothing') return { outcome: 'nothing_to_publish', schema };
  const graph = promotion.graph;
  const seeds = [...graph.seeds.values()].filter((s) => promotion.seeds.has(s.name));
  let seedApplied: SeedApplied;
  try {
    seedApplied = await applySeeds(ctx, { schema, graph, seeds, now: ctx.now(), ...(options.env ? { env: options.env } : {}) });
  } catch (e) {
    // applySeeds reports every failure it meets; reaching here is a bug, reported as honestly.
    const message = `seeds not applied: ${describeDbError(e)}`;
    seedApplied = {
      success: false,
      inserted: 0,
      updated: 0,
      skipped: 0,
      errors: seeds.map((s) => ({ seed: s.name, object: s.object, recordIndex: -1, message })),
      errorsOmitted: 0,
      seeds: [],
      interrupted: describeDbError(e),
    };
  }
  const unrecorded = logId === undefined ? undefined : await recordSeedReport(ctx, logId, seedApplied);
  const issues = [...promotion.issues];
  if (seedApplied.interrupted !== undefined || unrecorded !== undefined) issues.push(interruptedIssue(scope, seedApplied, unrecorded));
  return {
    outcome: 'published',
    schema,
    published: promotion.published,
    ddlSteps: promotion.steps,
    graph,
    seedApplied,
    issues: sortIssues(issues),
    checked: promotion.checked,
    retired: promotion.retired,
    publishId: logId!,
    packageArtifacts: promotion.packageArtifacts,
  };
}

/**
 * Writes the seed report into the publish log. When the pinned connection was lost (PostgreSQL),
 * it goes through the pool instead; on PGlite the pinned connection is the only one (waiting for
 * another would never end). Returns the error when it could not be written.
 */
async function recordSeedReport(ctx: PlatformContext, id: number, report: SeedApplied): Promise<string | undefined> {
  const write = (db: Kysely<BvlDatabase>) =>
    db
      .updateTable('bvl.publish_log')
      .set({ seed_applied: JSON.stringify(report) })
      .where('id', '=', id)
      .execute();
  try {
    await write(ctx.db);
    return undefined;
  } catch (e) {
    if (!(ctx.engine === 'postgres' && ctx.pool && ctx.pool !== ctx.db && isConnectionLost(e))) return describeDbError(e);
    try {
      await write(ctx.pool);
      return undefined;
    } catch (again) {
      return describeDbError(again);
    }
  }
}

/** The one error a publish that committed but could not finish what follows carries. */
function interruptedIssue(scope: PackageScope, s: SeedApplied, unrecorded: string | undefined): BuildIssue {
  const parts: string[] = [];
  if (s.interrupted !== undefined) {
    const applied = s.seeds.filter((o) => o.applied).length;
    const lost = s.seeds.filter((o) => !o.applied && o.failed > 0);
    parts.push(
      `the seeds stopped on a database failure (${s.interrupted}): ${applied} of ${s.seeds.length} seeds were applied (${s.inserted} rows inserted, ${s.updated} updated)${lost.length > 0 ? `, and ${lost.map((o) => `"${o.seed}"`).join(', ')} ${lost.length === 1 ? 'was' : 'were'} not (a seed the failure hit is rolled back whole)` : ''}`,
    );
  }
  if (unrecorded !== undefined) parts.push(`the publish log could not record the seed report (${unrecorded}), so it still says the seeds are pending`);
  return makeIssue({
    code: 'publish_interrupted',
    artifact: { type: 'package', name: scope.package },
    message: `Package "${scope.package}" was published to tenant "${scope.tenant}" (its metadata and tables are committed), but ${parts.join('; and ')}.`,
    fix: 'Fix the database (free disk space, restore the connection) and publish again: the published metadata stays, and seeds re-apply (idempotently under upsert and ignore).',
  });
}

/** Who holds locks on the tenant's tables (after a DDL gave up waiting for them). */
async function tableLockHolders(ctx: PlatformContext, schema: string, waitMs: number): Promise<string> {
  const rows = await sql<{ pid: number; application_name: string | null; state: string | null; secs: number | null; tables: string }>`
    select a.pid, a.application_name, a.state, extract(epoch from (now() - coalesce(a.xact_start, a.backend_start)))::int as secs,
           string_agg(distinct c.relname, ', ') as tables
    from pg_catalog.pg_locks l
    join pg_catalog.pg_class c on c.oid = l.relation
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    join pg_catalog.pg_stat_activity a on a.pid = l.pid
    where n.nspname = ${schema} and c.relkind in ('r', 'p') and l.granted and l.pid <> pg_backend_pid()
    group by a.pid, a.application_name, a.state, a.xact_start, a.backend_start
    order by a.pid limit 3`
    .execute(ctx.db)
    .catch(() => ({ rows: [] }));
  if (rows.rows.length === 0) return `a table of schema ${schema} was locked by another session, which has let go since`;
  return `tables of schema ${schema} are locked by ${describeSessions(rows.rows)} (${rows.rows.map((r) => r.tables).join('; ')}); the publish waited ${waitMs / 1000} s for them`;
}

async function promote(trx: Kysely<BvlDatabase>, now: Date, scope: PackageScope, options: PublishOptions): Promise<Promotion> {
  await sql`select set_config('application_name', ${publishApplicationName(scope)}, true)`.execute(trx);
  const wait = options.lockWaitMs !== undefined ? { waitMs: options.lockWaitMs } : {};
  await takeAdvisoryLock(trx, packageLockKey(scope), `package "${scope.package}" of tenant "${scope.tenant}"`, { xact: true, ...wait });
  // Ownership of a tenant's artifacts and its tables are decided by one publish at a time: two
  // packages declaring one object see each other, and a platform table is created once.
  await takeAdvisoryLock(trx, tenantLockKey(scope.tenant), `tenant "${scope.tenant}"`, { xact: true, ...wait });
  // Once this publish holds the package, DDL must not wait forever behind a long reader of a table
  // (and make every later reader queue behind it): give up, roll back and say so.
  await sql`select set_config('lock_timeout', ${`${options.ddlLockWaitMs ?? PUBLISH_LOCK_TIMEOUT_MS}ms`}, true)`.execute(trx);
  // The draft set this publish verifies and promotes: its rows locked until the commit, so none of
  // them changes meanwhile; a draft staged into a new slot after this is not in it (see lockDrafts).
  const locked = await lockDrafts(trx, scope);
  if (locked.length === 0) return { kind: 'nothing' };
  const held = new Map(locked.map((l) => [`${l.type}\u0000${l.name}`, l]));
  const rows = (await readOverlayRows(trx, scope.tenant, scope.package)).filter((r) => {
    if (r.state !== 'draft') return true;
    const l = held.get(`${r.type}\u0000${r.name}`);
    return l !== undefined && l.contentHash === r.contentHash && l.tombstone === (r.tombstone === true);
  });
  const drafts = rows.filter((r) => r.state === 'draft');
  if (drafts.length === 0) return { kind: 'nothing' };
  const draftSlots = new Set(drafts.map((d) => `${d.type}\u0000${d.name}`));
  const verified = locked.filter((l) => draftSlots.has(`${l.type}\u0000${l.name}`));
  const active = rows.filter((r) => r.state === 'active');

  // The gate, on the exact graph being promoted, inside the package lock.
  const overlay = overlayOf(rows, scope.package);
  const gate = verify(overlay.published, overlay.drafts);
  const plan = planTables(gate.graph);
  if (!gate.publishable || plan.issues.length > 0) throw new Refusal(sortIssues([...gate.issues, ...plan.issues]), gate.checked);
  await options.interleave?.('gated', trx);

  // What the republish does to the rows already there, decided before anything changes.
  const schema = await ensureOwnSchema(trx, scope.tenant);
  const existing = await readExistingSchema(trx, schema);
  const steps = diffSchema(plan.tables, existing);
  const seedNames = new Set([...active, ...drafts].filter((r) => r.package === scope.package && r.type === 'seed').map((r) => r.name));
  const check = await checkRepublish(trx, {
    schema,
    steps,
    existing,
    tables: plan.tables,
    graph: gate.graph,
    before: fieldsBefore(active),
    seeds: [...gate.graph.seeds.values()].filter((s) => seedNames.has(s.name)),
    env: options.env ?? 'dev',
    allowDataChange: options.allowDataChange === true,
  });
  if (check.errors.length > 0) throw new Refusal(sortIssues([...gate.issues, ...check.errors, ...check.warnings]), gate.checked);

  const at = now.toISOString();
  const promoted = await trx
    .insertInto('bvl.metadata_items')
    .columns(['tenant_id', 'package', 'type', 'name', 'state', 'body', 'source', 'content_hash', 'version', 'updated_at'])
    .expression((eb) =>
      eb
        .selectFrom('bvl.metadata_items as d')
        .select([
          'd.tenant_id',
          'd.package',
          'd.type',
          'd.name',
          sql<'active'>`'active'`.as('state'),
          'd.body',
          'd.source',
          'd.content_hash',
          sql<number>`1`.as('version'),
          sql<string>`${at}::timestamptz`.as('updated_at'),
        ])
        .where('d.tenant_id', '=', scope.tenant)
        .where('d.package', '=', scope.package)
        .where('d.state', '=', 'draft')
        .where('d.tombstone', '=', false)
        // Exactly the rows verified, as verified (the content hash guards a change made by this very transaction).
        .where(
          sql<boolean>`(d.id, d.content_hash) in (select * from unnest(${verified.map((v) => v.id)}::text[], ${verified.map((v) => v.contentHash)}::text[]))`,
        ),
    )
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'package', 'type', 'name', 'state']).doUpdateSet((eb) => ({
        body: eb.ref('excluded.body'),
        source: eb.ref('excluded.source'),
        // A republished identical body keeps its version.
        version: sql<number>`bvl.metadata_items.version + case when bvl.metadata_items.content_hash = excluded.content_hash then 0 else 1 end`,
        content_hash: eb.ref('excluded.content_hash'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returning(['type', 'name', 'version'])
    .execute();
  await options.interleave?.('promoted', trx);
  const expected = verified.filter((v) => !v.tombstone).length;
  if (promoted.length !== expected)
    throw new Error(`the verified draft set changed under the publish (${promoted.length} of ${expected} drafts promoted); nothing was published`);
  // Only the drafts verified go; a draft staged meanwhile stays for the next round.
  await trx
    .deleteFrom('bvl.metadata_items')
    .where('tenant_id', '=', scope.tenant)
    .where('package', '=', scope.package)
    .where('state', '=', 'draft')
    .where(
      'id',
      'in',
      verified.map((v) => v.id),
    )
    .execute();
  // A draft container replaces its whole published container (as the overlay showed): views it dropped are retired.
  const redrafted = redraftedContainers(overlay.drafts.artifacts);
  const retired = active.filter((a) => {
    if (a.package !== scope.package || a.type !== 'view' || draftSlots.has(`${a.type}\u0000${a.name}`)) return false;
    const container = fromStoredArtifact(a, false)?.container;
    return container !== undefined && redrafted.has(container);
  });
  for (const r of retired) {
    await trx
      .deleteFrom('bvl.metadata_items')
      .where('tenant_id', '=', scope.tenant)
      .where('package', '=', scope.package)
      .where('type', '=', 'view')
      .where('name', '=', r.name)
      .where('state', '=', 'active')
      .execute();
  }

  await applySchemaSteps(trx, schema, steps, options.afterDdlStep);
  for (const statement of check.afterDdl) await statement.execute(trx);
  const retiredItems = await retire(trx, scope, schema, overlay.retired, active, options.dropData === true);

  // What the package publishes now: its earlier artifacts, minus what this publish retired, plus its drafts.
  const mine = new Map<string, { type: string; name: string }>();
  for (const r of active) if (r.package === scope.package) mine.set(`${r.type}\u0000${r.name}`, { type: r.type, name: r.name });
  for (const d of drafts) if (!d.tombstone) mine.set(`${d.type}\u0000${d.name}`, { type: d.type, name: d.name });
  for (const r of [...retired, ...overlay.retired]) mine.delete(`${r.type}\u0000${r.name}`);
  const packageArtifacts = [...mine.values()].sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : 1) : a.type < b.type ? -1 : 1));

  const items = promoted
    .map((p) => ({ type: p.type, name: p.name, version: p.version }))
    .sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : 1) : a.type < b.type ? -1 : 1));
  return {
    kind: 'done',
    published: items,
    retired: retiredItems,
    steps: steps.length,
    graph: gate.graph,
    seeds: seedNames,
    issues: [...gate.issues, ...check.warnings],
    checked: gate.checked,
    packageArtifacts,
  };
}

/** Field definitions per object as published before this publish (the bodies of the active object rows). */
function fieldsBefore(active: readonly OverlayRow[]): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const r of active) {
    if (r.type !== 'object') continue;
    const fields = (r.body as { fields?: unknown } | null)?.fields;
    if (typeof fields === 'object' && fields !== null && !Array.isArray(fields)) out.set(r.name, fields as Record<string, unknown>);
  }
  return out;
}

/**
 * Retires what the tombstones name: their active metadata rows go; with `dropData`, a retired
 * object's table is dropped (after the DDL, so nothing re-creates it) and a retired seed's rows are
 * deleted by its single-field natural key.
 */
async function retire(
  trx: Kysely<BvlDatabase>,
  scope: PackageScope,
  schema: string,
  slots: ReadonlyArray<{ type: string; name: string }>,
  active: readonly OverlayRow[],
  dropData: boolean,
): Promise<RetiredItem[]> {
  const out: RetiredItem[] = [];
  for (const s of slots) {
    await trx
      .deleteFrom('bvl.metadata_items')
      .where('tenant_id', '=', scope.tenant)
      .where('package', '=', scope.package)
      .where('type', '=', s.type)
      .where('name', '=', s.name)
      .where('state', '=', 'active')
      .execute();
    if (s.type === 'object') {
      if (dropData) await sql`drop table if exists ${sql.id(schema, s.name)} cascade`.execute(trx);
      out.push({ ...s, data: dropData ? 'dropped' : 'kept' });
    } else if (s.type === 'seed') {
      out.push({ ...s, data: dropData ? await deleteSeedRows(trx, schema, active, s.name) : 'kept' });
    } else out.push({ ...s, data: 'none' });
  }
  return out;
}

async function deleteSeedRows(trx: Kysely<BvlDatabase>, schema: string, active: readonly OverlayRow[], name: string): Promise<RetiredItem['data']> {
  const row = active.find((r) => r.type === 'seed' && r.name === name);
  const body = row?.body as { object?: unknown; externalId?: unknown; key?: unknown; records?: unknown; data?: unknown; rows?: unknown } | undefined;
  const key = body?.externalId ?? body?.key ?? 'name';
  const records = body?.records ?? body?.data ?? body?.rows;
  if (typeof body?.object !== 'string' || typeof key !== 'string' || !Array.isArray(records)) return 'kept';
  const values = records.flatMap((r) =>
    r && typeof r === 'object' && typeof (r as Record<string, unknown>)[key] === 'string' ? [(r as Record<string, string>)[key]] : [],
  );
  if (values.length === 0) return { deleted: 0 };
  const exists = await sql<{ n: number }>`
    select count(*)::int as n from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relname = ${body.object} and a.attname = ${key} and a.attnum > 0 and not a.attisdropped`.execute(trx);
  if (exists.rows[0]?.n !== 1) return 'kept';
  const r = await sql`delete from ${sql.id(schema, body.object)} where ${sql.id(key)}::text = any(${values}::text[])`.execute(trx);
  return { deleted: Number(r.numAffectedRows ?? 0) };
}
