import { type BuildIssue, sortIssues } from '@bvl/build-issue';
import { type Graph, redraftedContainers } from '@bvl/metadata';
import { type Checked, verify } from '@bvl/verify';
import { type Kysely, sql } from 'kysely';
import type { BvlDatabase, PlatformContext } from './database.ts';
import { describeDbError } from './describe-db-error.ts';
import { diffSchema } from './diff-schema.ts';
import { type OverlayRow, overlayOf } from './overlay-of.ts';
import { planTables } from './plan-tables.ts';
import { type AfterStep, applySchemaSteps, readExistingSchema } from './run-ddl.ts';
import { readOverlayRows } from './run-drafts.ts';
import { packageLockKey } from './run-package-lock.ts';
import { applySeeds, type SeedApplied } from './run-seeds.ts';
import { ensureTenant } from './run-tenant.ts';
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
}

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
 */
export async function publishPackage(ctx: PlatformContext, scope: PackageScope, options: PublishOptions = {}): Promise<PublishResult> {
  const schema = await ensureTenant(ctx, scope);
  let promotion: Promotion;
  let logId: number | undefined;
  try {
    promotion = await ctx.db.transaction().execute(async (trx) => {
      const p = await promote(trx, ctx.now(), scope, schema, options);
      if (p.kind === 'done') {
        const log = await trx
          .insertInto('bvl.publish_log')
          .values({
            tenant_id: scope.tenant,
            package: scope.package,
            outcome: 'published',
            published: JSON.stringify({ published: p.published, retired: p.retired }),
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
    return { outcome: 'failed', schema, error: `publish rolled back, the previous published state is unchanged: ${describeDbError(e)}`, cause: e };
  }
  if (promotion.kind === 'nothing') return { outcome: 'nothing_to_publish', schema };
  const graph = promotion.graph;
  const seeds = [...graph.seeds.values()].filter((s) => promotion.seeds.has(s.name));
  let seedApplied: SeedApplied;
  try {
    seedApplied = await applySeeds(ctx, { schema, graph, seeds, now: ctx.now(), ...(options.env ? { env: options.env } : {}) });
  } catch (e) {
    // The metadata and tables are committed; only the seeds did not run (e.g. the database went away).
    const message = `seeds not applied: ${describeDbError(e)}`;
    seedApplied = {
      success: false,
      inserted: 0,
      updated: 0,
      skipped: 0,
      errors: seeds.map((s) => ({ seed: s.name, object: s.object, recordIndex: -1, message })),
      errorsOmitted: 0,
      seeds: [],
    };
  }
  if (logId !== undefined)
    await ctx.db
      .updateTable('bvl.publish_log')
      .set({ seed_applied: JSON.stringify(seedApplied) })
      .where('id', '=', logId)
      .execute();
  return {
    outcome: 'published',
    schema,
    published: promotion.published,
    ddlSteps: promotion.steps,
    graph,
    seedApplied,
    issues: promotion.issues,
    checked: promotion.checked,
    retired: promotion.retired,
    publishId: logId!,
  };
}

async function promote(trx: Kysely<BvlDatabase>, now: Date, scope: PackageScope, schema: string, options: PublishOptions): Promise<Promotion> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${packageLockKey(scope)}, 0))`.execute(trx);
  // Once this publish holds the package, DDL must not wait forever behind a long reader of a table
  // (and make every later reader queue behind it): give up, roll back and say so.
  await sql`set local lock_timeout = ${sql.lit(`${PUBLISH_LOCK_TIMEOUT_MS}ms`)}`.execute(trx);
  const rows = await readOverlayRows(trx, scope.tenant, scope.package);
  const drafts = rows.filter((r) => r.state === 'draft');
  if (drafts.length === 0) return { kind: 'nothing' };
  const active = rows.filter((r) => r.state === 'active');
  const draftSlots = new Set(drafts.map((d) => `${d.type}\u0000${d.name}`));

  // The gate, on the exact graph being promoted, inside the package lock.
  const overlay = overlayOf(rows, scope.package);
  const gate = verify(overlay.published, overlay.drafts);
  const plan = planTables(gate.graph);
  if (!gate.publishable || plan.issues.length > 0) throw new Refusal(sortIssues([...gate.issues, ...plan.issues]), gate.checked);

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
        .where('d.tombstone', '=', false),
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
  await trx.deleteFrom('bvl.metadata_items').where('tenant_id', '=', scope.tenant).where('package', '=', scope.package).where('state', '=', 'draft').execute();
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

  await sql`create schema if not exists ${sql.id(schema)}`.execute(trx);
  const steps = diffSchema(plan.tables, await readExistingSchema(trx, schema));
  await applySchemaSteps(trx, schema, steps, options.afterDdlStep);
  const retiredItems = await retire(trx, scope, schema, overlay.retired, active, options.dropData === true);

  const seeds = new Set([...active, ...drafts].filter((r) => r.package === scope.package && r.type === 'seed').map((r) => r.name));
  const items = promoted
    .map((p) => ({ type: p.type, name: p.name, version: p.version }))
    .sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : 1) : a.type < b.type ? -1 : 1));
  return { kind: 'done', published: items, retired: retiredItems, steps: steps.length, graph: gate.graph, seeds, issues: gate.issues, checked: gate.checked };
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
  const exists = await sql<{
    n: number;
  }>`select count(*)::int as n from information_schema.columns where table_schema = ${schema} and table_name = ${body.object} and column_name = ${key}`.execute(
    trx,
  );
  if (exists.rows[0]?.n !== 1) return 'kept';
  const r = await sql`delete from ${sql.id(schema, body.object)} where ${sql.id(key)}::text = any(${values}::text[])`.execute(trx);
  return { deleted: Number(r.numAffectedRows ?? 0) };
}
