import { type BuildIssue, sortIssues } from '@bvl/build-issue';
import { type Graph, redraftedContainers } from '@bvl/metadata';
import type { Checked } from '@bvl/verify';
import { type Kysely, sql } from 'kysely';
import type { BvlDatabase } from './database.ts';
import { diffSchema } from './diff-schema.ts';
import { type OverlayRow, overlayOf } from './overlay-of.ts';
import { planTables } from './plan-tables.ts';
import { type AfterStep, applySchemaSteps, readExistingSchema } from './run-ddl.ts';
import { lockDrafts, readOverlayRows } from './run-drafts.ts';
import { checkSwitchLocks } from './run-lock-table.ts';
import type { LockWaitNotice } from './run-package-lock.ts';
import { packageLockKey, publishApplicationName, takeAdvisoryLock, tenantLockKey } from './run-package-lock.ts';
import { unfinishedSeeds } from './run-publish-log.ts';
import { checkRepublish } from './run-republish-checks.ts';
import { type RetiredItem, retire } from './run-retire.ts';
import { ensureOwnSchema } from './run-tenant.ts';
import type { PackageScope } from './scope.ts';
import { tenantSeedRecords } from './seed-records.ts';
import { recordSwaps, useShadows } from './shadow-columns.ts';
import { fromStoredArtifact } from './stored-artifact.ts';
import { verifyStored } from './stored-seeds.ts';
import type { LockTable } from './switch-locks.ts';

/** Options of {@link publishPackage}. */
export interface PublishOptions {
  /** Seeds whose `env` list lacks this are not applied (default `dev`). */
  readonly env?: string;
  /** Seed records applied per publish (default MAX_SEED_RECORDS; see ApplySeedsOptions.maxSeedRecords). Tests pass a small one. */
  readonly maxSeedRecords?: number;
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
  /** Told once when the wait for the package's lock goes on (see withPackageLock). */
  readonly onLockWait?: ((w: LockWaitNotice) => void) | undefined;
  /** How long DDL waits for a table a reader holds (default PUBLISH_LOCK_TIMEOUT_MS). */
  readonly ddlLockWaitMs?: number;
  /**
   * Test hook, awaited inside the transaction at each point a concurrent caller could act (see
   * {@link PublishPoint}); tests stage, replace or discard drafts here to prove the publish
   * promotes exactly what it verified.
   */
  readonly interleave?: (point: PublishPoint, trx: Kysely<BvlDatabase>) => Promise<void>;
  /**
   * Cancels the publish until it commits: the caller's time bound. An abort rolls the publish back
   * (on PostgreSQL the statement it is running — a lock wait, a long DDL — is cancelled at once; on
   * PGlite it stops at its next step) and the result is `failed` with `cancelled: true`: nothing was
   * published. An abort after the commit changes nothing: the seeds run and the result says `published`.
   */
  readonly signal?: AbortSignal;
  /**
   * Runs last inside the publish transaction, just before the commit: a condition the publish must
   * still meet then (publishBuild: its build session is still open, the session row locked so a
   * cancel waits for the commit). Whatever it throws rolls the publish back and is thrown on to the caller as is.
   */
  readonly beforeCommit?: (trx: Kysely<BvlDatabase>) => Promise<void>;
  /**
   * Told (synchronously) the moment the publish is past its last cancellation point and its commit
   * is on the way, with its publish log id: from here an abort changes nothing, and the publish
   * commits unless the database fails. A caller whose time bound passes after this answers
   * `accepted` (the publish can be followed by its id) instead of cancelling it.
   */
  readonly onCommitting?: (publishId: number) => void;
  /**
   * Called once the switch committed, before what it retired and what was built ahead and not
   * adopted are dropped (a publish that built ahead; tests kill the process here).
   */
  readonly onSwitched?: (publishId: number) => void | Promise<void>;
  /**
   * Locks one transaction of the publish may take for DDL (default DDL_LOCK_BUDGET): a publish
   * whose tables need more builds them ahead in transactions of at most this many (see stagePublish).
   */
  readonly lockBudget?: number;
  /**
   * The server's lock table as the publish plans for it (default: read from the server's settings,
   * see readLockTable). A publish whose switching transaction would take more locks than it holds
   * is refused with `publish_exceeds_lock_table` before any DDL. Tests pass a small one.
   */
  readonly lockTable?: LockTable;
  /**
   * Told when a publish built tables ahead of its switch (how many steps, in how many transactions),
   * before the switch begins; `db` is the publish's own connection, outside any transaction (on
   * PGlite, the only one: tests write through it in this window).
   */
  readonly onStaged?: (staged: { readonly steps: number; readonly batches: number }, db: Kysely<BvlDatabase>) => unknown;
}

/** Where {@link PublishOptions.interleave} is called: `gated` once the draft set is read and verified, `promoted` once it is inserted as active (before the drafts are removed). */
export type PublishPoint = 'gated' | 'promoted';

/** How long a publish's DDL waits for a table lock held by a reader before it gives up and rolls back. */
export const PUBLISH_LOCK_TIMEOUT_MS = 10_000;

/** A promoted item and its new version. */
export interface PublishedItem {
  readonly type: string;
  readonly name: string;
  readonly version: number;
}

/** What the publish transaction decided and did. */
export type Promotion =
  | { kind: 'nothing' }
  | {
      kind: 'done';
      resumed: number | undefined;
      published: PublishedItem[];
      retired: RetiredItem[];
      steps: number;
      graph: Graph;
      seeds: Set<string>;
      issues: BuildIssue[];
      checked: Checked;
      packageArtifacts: Array<{ type: string; name: string }>;
      changed: Array<{ type: string; name: string }>;
    };

/** The gate (or the republish check) refused: nothing changes. */
export class Refusal extends Error {
  constructor(
    readonly issues: BuildIssue[],
    readonly checked: Checked,
  ) {
    super('refused');
  }
}

/**
 * The publish transaction's work, under its locks: the draft set locked and gated, the republish
 * checked, the drafts promoted, the DDL run, tombstones retired. `checkpoint` throws when the
 * caller cancelled. Throws {@link Refusal} when the gate or the republish check says no.
 */
export async function promote(trx: Kysely<BvlDatabase>, now: Date, scope: PackageScope, options: PublishOptions, checkpoint: () => void): Promise<Promotion> {
  await sql`select set_config('application_name', ${publishApplicationName(scope)}, true)`.execute(trx);
  const wait = { ...(options.lockWaitMs !== undefined ? { waitMs: options.lockWaitMs } : {}), signal: options.signal };
  await takeAdvisoryLock(trx, packageLockKey(scope), `package "${scope.package}" of tenant "${scope.tenant}"`, { xact: true, ...wait });
  // Ownership of a tenant's artifacts and its tables are decided by one publish at a time: two
  // packages declaring one object see each other, and a platform table is created once.
  await takeAdvisoryLock(trx, tenantLockKey(scope.tenant), `tenant "${scope.tenant}"`, { xact: true, ...wait });
  // Once this publish holds the package, DDL must not wait forever behind a long reader of a table
  // (and make every later reader queue behind it): give up, roll back and say so.
  await sql`select set_config('lock_timeout', ${`${options.ddlLockWaitMs ?? PUBLISH_LOCK_TIMEOUT_MS}ms`}, true)`.execute(trx);
  checkpoint();
  // Seeds an earlier publish left unfinished (it holds no lock any more: this one holds the package).
  const resumed = await unfinishedSeeds(trx, scope);
  // The draft set this publish verifies and promotes: its rows locked until the commit, so none of
  // them changes meanwhile; a draft staged into a new slot after this is not in it (see lockDrafts).
  const locked = await lockDrafts(trx, scope);
  if (locked.length === 0) return resumed === undefined ? { kind: 'nothing' } : resume(trx, scope, resumed);
  const held = new Map(locked.map((l) => [`${l.type}\u0000${l.name}`, l]));
  // Large seeds' records stay in the store: the gate reads them part by part (issue 21).
  const rows = (await readOverlayRows(trx, scope.tenant, scope.package, { storedSeeds: true })).filter((r) => {
    if (r.state !== 'draft') return true;
    const l = held.get(`${r.type}\u0000${r.name}`);
    return l !== undefined && l.contentHash === r.contentHash && l.tombstone === (r.tombstone === true);
  });
  const drafts = rows.filter((r) => r.state === 'draft');
  if (drafts.length === 0) return resumed === undefined ? { kind: 'nothing' } : resume(trx, scope, resumed);
  const draftSlots = new Set(drafts.map((d) => `${d.type}\u0000${d.name}`));
  const verified = locked.filter((l) => draftSlots.has(`${l.type}\u0000${l.name}`));
  const active = rows.filter((r) => r.state === 'active');

  // The gate, on the exact graph being promoted, inside the package lock.
  const overlay = overlayOf(rows, scope.package);
  const gate = await verifyStored(trx, scope.tenant, overlay.published, overlay.drafts);
  const plan = planTables(gate.graph);
  if (!gate.publishable || plan.issues.length > 0) throw new Refusal(sortIssues([...gate.issues, ...plan.issues]), gate.checked);
  // A large stored seed stays in the store: the republish check and the seed writer read its records
  // part by part through their sources (tenantSeedRecords), as the gate did.
  const graph = gate.graph;
  await options.interleave?.('gated', trx);
  checkpoint();

  // What the republish does to the rows already there, decided before anything changes.
  const schema = await ensureOwnSchema(trx, scope.tenant);
  const existing = await readExistingSchema(trx, schema);
  // A type change whose shadow column was built ahead (see stagePublish) is only swapped in here.
  const steps = useShadows(diffSchema(plan.tables, existing), existing);
  // Whether the server can hold this transaction's locks at all: refused now rather than rolled back
  // with "out of shared memory" after its DDL ran (issue 21). Tables a tombstone drops count too.
  const drops = options.dropData === true ? overlay.retired.filter((r) => r.type === 'object' && existing.tables.has(r.name)).map((r) => r.name) : [];
  const tooBig = await checkSwitchLocks(trx, scope.package, schema, steps, drops, options.lockTable);
  if (tooBig) throw new Refusal(sortIssues([...gate.issues, tooBig]), gate.checked);
  const seedNames = new Set([...active, ...drafts].filter((r) => r.package === scope.package && r.type === 'seed').map((r) => r.name));
  const check = await checkRepublish(trx, {
    schema,
    steps,
    existing,
    tables: plan.tables,
    graph,
    before: fieldsBefore(active),
    seeds: [...graph.seeds.values()].filter((s) => seedNames.has(s.name)),
    records: tenantSeedRecords(scope.tenant),
    env: options.env ?? 'dev',
    allowDataChange: options.allowDataChange === true,
  });
  if (check.errors.length > 0) throw new Refusal(sortIssues([...gate.issues, ...check.errors, ...check.warnings]), gate.checked);
  checkpoint();

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
    .where(sql<boolean>`id = any(${verified.map((v) => v.id)}::text[])`)
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
  await recordSwaps(trx, scope, steps);
  for (const statement of check.afterDdl) await statement.execute(trx);
  const retiredItems = await retire(trx, scope, schema, overlay.retired, active, options.dropData === true);
  checkpoint();

  // What the package publishes now: its earlier artifacts, minus what this publish retired, plus its drafts.
  const mine = new Map<string, { type: string; name: string }>();
  for (const r of active) if (r.package === scope.package) mine.set(`${r.type}\u0000${r.name}`, { type: r.type, name: r.name });
  for (const d of drafts) if (!d.tombstone) mine.set(`${d.type}\u0000${d.name}`, { type: d.type, name: d.name });
  for (const r of [...retired, ...overlay.retired]) mine.delete(`${r.type}\u0000${r.name}`);
  const packageArtifacts = [...mine.values()].sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : 1) : a.type < b.type ? -1 : 1));

  // What this publish changed (what a republish's probes must look at again): drafts whose content
  // is new or differs from what was active, what it retired, and each table its DDL changed.
  const before = new Map(active.filter((r) => r.package === scope.package).map((r) => [`${r.type}\u0000${r.name}`, r.contentHash]));
  const changed = new Map<string, { type: string; name: string }>();
  const mark = (type: string, name: string) => changed.set(`${type}\u0000${name}`, { type, name });
  for (const d of drafts) {
    const was = before.get(`${d.type}\u0000${d.name}`);
    if (d.tombstone || was === undefined || was !== d.contentHash) mark(d.type, d.name);
  }
  for (const r of [...retired, ...overlay.retired]) mark(r.type, r.name);
  for (const step of steps) mark('object', step.table);

  const items = promoted
    .map((p) => ({ type: p.type, name: p.name, version: p.version }))
    .sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : 1) : a.type < b.type ? -1 : 1));
  return {
    kind: 'done',
    resumed,
    published: items,
    retired: retiredItems,
    steps: steps.length,
    graph,
    seeds: seedNames,
    issues: [...gate.issues, ...check.warnings],
    checked: gate.checked,
    packageArtifacts,
    changed: [...changed.values()],
  };
}

/**
 * A publish with no drafts that applies the seeds an earlier publish left unfinished (`resumed`,
 * its log id): the published graph as it is, every seed of the package, nothing promoted.
 */
async function resume(trx: Kysely<BvlDatabase>, scope: PackageScope, resumed: number): Promise<Promotion> {
  const rows = (await readOverlayRows(trx, scope.tenant, scope.package, { storedSeeds: true })).filter((r) => r.state === 'active');
  const overlay = overlayOf(rows, scope.package);
  const published = await verifyStored(trx, scope.tenant, overlay.published, overlay.drafts);
  const mine = rows.filter((r) => r.package === scope.package);
  return {
    kind: 'done',
    resumed,
    published: [],
    retired: [],
    steps: 0,
    graph: published.graph,
    seeds: new Set(mine.filter((r) => r.type === 'seed').map((r) => r.name)),
    issues: [],
    checked: published.checked,
    packageArtifacts: mine.map((r) => ({ type: r.type, name: r.name })),
    changed: [],
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
