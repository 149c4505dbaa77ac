import { collectStack, readSource } from '@bvl/metadata';
import { CORPUS_NAMES, corpusFile, EXAMPLE_DIR, fixtureFile } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import { verify } from '@bvl/verify';
import { describe, expect, it } from 'vitest';
import { useTestPlatform } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import type { Platform } from './open-platform.ts';
import { readExistingSchema } from './run-ddl.ts';
import { listDrafts, readOverlay, stageDrafts } from './run-drafts.ts';
import { publishPackage } from './run-publish.ts';

let platform: Platform;
const made = useTestPlatform(
  (p) => {
    platform = p;
  },
  () => new Date('2026-03-15T10:00:00Z'),
);

const stack = (doc: unknown) => collectStack(doc, { draft: true });
const activeRows = (tenant: string) =>
  platform.db
    .selectFrom('bvl.metadata_items')
    .select(['type', 'name', 'version', 'content_hash'])
    .where('tenant_id', '=', tenant)
    .where('state', '=', 'active')
    .orderBy('type')
    .orderBy('name')
    .execute();

/** Publishing a whole stack: one transaction promotes and creates the tables; seeds land; a replay changes nothing. */
async function publishesWhole(file: string, objects: number, records: number): Promise<void> {
  const scope = { tenant: made.next(), package: 'app' };
  const set = await readSource(file);
  await stageDrafts(platform, scope, set);
  const r = await publishPackage(platform, scope);
  expect(r.outcome).toBe('published');
  if (r.outcome !== 'published') return;
  expect(r.seedApplied).toMatchObject({ success: true, inserted: records, updated: 0, errors: [] });
  expect(r.published).toHaveLength(set.artifacts.length);
  const schema = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
  const declared = set.artifacts.filter((a) => a.type === 'object').map((a) => a.name);
  expect(declared).toHaveLength(objects);
  for (const o of [...declared, 'sys_user', 'sys_business_unit']) expect(schema.tables.has(o), o).toBe(true);
  expect(await listDrafts(platform, scope)).toEqual([]);
  // Nothing staged: nothing to do. Restaged unchanged: versions stay, seeds upsert (no duplicates).
  expect((await publishPackage(platform, scope)).outcome).toBe('nothing_to_publish');
  await stageDrafts(platform, scope, set);
  const again = await publishPackage(platform, scope);
  expect(again).toMatchObject({ outcome: 'published', ddlSteps: 0, seedApplied: { inserted: 0, errors: [] } });
  if (again.outcome === 'published') expect(new Set(again.published.map((p) => p.version))).toEqual(new Set([1]));
}

describe('publishPackage on whole stacks', () => {
  it('field-service (every field type, composite and ignore-mode seeds, a platform-object seed): one transaction, 7 tables, 25 records', () =>
    publishesWhole(fixtureFile('field-service'), 7, 25));
  it('the example app: 3 tables, 9 records', () => publishesWhole(`${EXAMPLE_DIR}/app`, 3, 9));
});

describeCorpora('publishPackage on the shared corpora', () => {
  const counts: Record<(typeof CORPUS_NAMES)[number], [number, number]> = { 'app-todo': [1, 8], 'app-crm': [6, 28], 'app-showcase': [24, 132] };
  it.each(CORPUS_NAMES)('%s: one transaction promotes and creates its tables; seeds land', (name) => publishesWhole(corpusFile(name), ...counts[name]));
});

describe('publishPackage', () => {
  const v1 = {
    objects: [{ name: 'acct', fields: { name: { type: 'text' }, size: { type: 'text' } } }],
    data: [{ object: 'acct', records: [{ name: 'A', size: '12' }] }],
  };
  const v2 = {
    objects: [
      { name: 'acct', fields: { name: { type: 'text' }, size: { type: 'number' }, tier: { type: 'select', options: ['a'] } } },
      { name: 'deal', fields: { name: { type: 'text' }, acct: { type: 'lookup', reference: 'acct' } } },
    ],
    data: [{ object: 'deal', records: [{ name: 'D', acct: 'A' }] }],
  };

  it('alters tables in place: adds columns and tables, converts a changed type, bumps versions of changed items', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    await stageDrafts(platform, scope, stack(v2));
    const r = await publishPackage(platform, scope);
    expect(r).toMatchObject({ outcome: 'published', seedApplied: { success: true, inserted: 1 } });
    const schema = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    expect(schema.tables.get('acct')!.columns.get('size')).toEqual({ base: 'numeric', array: false });
    expect(schema.tables.get('acct')!.columns.get('tier')).toEqual({ base: 'text', array: false });
    expect(schema.tables.get('deal')!.foreignKeys.map((f) => [f.column, f.table, f.onDelete])).toEqual([['acct', 'acct', 'set null']]);
    const rows = await platform.db
      .withSchema(tenantSchema(scope.tenant))
      .selectFrom('acct' as never)
      .selectAll()
      .execute();
    expect(rows).toMatchObject([{ name: 'A', size: '12' }]);
    expect((await activeRows(scope.tenant)).filter((x) => x.type === 'object').map((x) => [x.name, x.version])).toEqual([
      ['acct', 2],
      ['deal', 1],
    ]);
  });

  it('a republished view container replaces the whole container: a view the draft drops is retired', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const obj = { name: 'acct', fields: { name: { type: 'text' }, tier: { type: 'select', options: ['a', 'b'] } } };
    const list = { type: 'grid', data: { provider: 'object', object: 'acct' }, columns: ['name'] };
    await stageDrafts(
      platform,
      scope,
      stack({ objects: [obj], views: [{ list, listViews: { board: { ...list, type: 'kanban', kanban: { groupByField: 'tier' } } } }] }),
    );
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    expect((await activeRows(scope.tenant)).filter((x) => x.type === 'view').map((x) => x.name)).toEqual(['acct.board', 'acct.default']);
    await stageDrafts(platform, scope, stack({ views: [{ list }] }));
    expect([...(await readOverlay(platform, scope)).drafts.artifacts.map((a) => a.container)]).toEqual(['container:acct']);
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    expect((await activeRows(scope.tenant)).filter((x) => x.type === 'view').map((x) => x.name)).toEqual(['acct.default']);
  });

  it('leaves the previous published state intact when it crashes after some DDL', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await stageDrafts(platform, scope, stack(v1));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const schemaBefore = await readExistingSchema(platform.db, tenantSchema(scope.tenant));
    const metaBefore = await activeRows(scope.tenant);
    await stageDrafts(platform, scope, stack(v2));
    const draftsBefore = await listDrafts(platform, scope);
    let ran = 0;
    const crashed = await publishPackage(platform, scope, {
      afterDdlStep: (i) => {
        ran = i + 1;
        if (i === 2) throw new Error('injected crash after 3 DDL steps');
      },
    });
    expect(ran).toBe(3);
    expect(crashed).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/rolled back.*injected crash after 3 DDL steps/) });
    expect(await readExistingSchema(platform.db, tenantSchema(scope.tenant))).toEqual(schemaBefore);
    expect(await activeRows(scope.tenant)).toEqual(metaBefore);
    expect(await listDrafts(platform, scope)).toEqual(draftsBefore);
    // The same drafts publish cleanly afterwards.
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
  });

  it('serializes concurrent publishes of one package: one publishes, the other finds nothing left', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await stageDrafts(platform, scope, stack(v2));
    const outcomes = (await Promise.all([publishPackage(platform, scope), publishPackage(platform, scope), publishPackage(platform, scope)]))
      .map((r) => r.outcome)
      .sort();
    expect(outcomes).toEqual(['nothing_to_publish', 'nothing_to_publish', 'published']);
    const deals = await platform.db
      .withSchema(tenantSchema(scope.tenant))
      .selectFrom('deal' as never)
      .selectAll()
      .execute();
    expect(deals).toHaveLength(1);
  });

  it('refuses hostile names before any DDL: nothing is promoted and no table is created', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await stageDrafts(
      platform,
      scope,
      stack({
        objects: [
          { name: 'ok', fields: {} },
          { name: 'bad"; drop schema bvl cascade; --', fields: {} },
          { name: 'o', fields: { 'x"y': { type: 'text' } } },
        ],
      }),
    );
    const r = await publishPackage(platform, scope);
    expect(r.outcome).toBe('refused');
    if (r.outcome !== 'refused') return;
    expect(r.issues.map((i) => [i.code, i.artifact.name])).toEqual([
      ['invalid_artifact', 'bad"; drop schema bvl cascade; --'],
      ['invalid_artifact', 'o'],
    ]);
    expect((await readExistingSchema(platform.db, tenantSchema(scope.tenant))).tables.size).toBe(0);
    expect(await activeRows(scope.tenant)).toEqual([]);
  });

  it('refuses an artifact another package of the tenant already published', async () => {
    const tenant = made.next();
    await stageDrafts(platform, { tenant, package: 'one' }, stack(v1));
    expect((await publishPackage(platform, { tenant, package: 'one' })).outcome).toBe('published');
    await stageDrafts(platform, { tenant, package: 'two' }, stack({ objects: [{ name: 'acct', fields: {} }] }));
    const r = await publishPackage(platform, { tenant, package: 'two' });
    expect(r).toMatchObject({
      outcome: 'refused',
      issues: [
        { code: 'duplicate_artifact', artifact: { type: 'object', name: 'acct' }, message: expect.stringMatching(/already published by package "one"/) },
      ],
    });
  });

  it('the gate is inside publish: a direct call with an L1 error (ADR-0038 incident #1) is refused, nothing promoted', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    const app = await readSource(`${EXAMPLE_DIR}/app`, { draft: true });
    const dashboard = app.artifacts.find((a) => a.type === 'dashboard')!;
    const broken = structuredClone(dashboard.body) as { widgets: Array<{ dataset: string }> };
    broken.widgets[0]!.dataset = 'exp_missing';
    await stageDrafts(platform, scope, [...app.artifacts.filter((a) => a !== dashboard), { ...dashboard, body: broken }]);
    const r = await publishPackage(platform, scope);
    expect(r.outcome).toBe('refused');
    if (r.outcome !== 'refused') return;
    expect(r.issues.filter((i) => i.severity === 'error').map((i) => [i.code, i.artifact.name, i.path])).toEqual([
      ['dangling_dataset', 'exp_spending', '/widgets/0/dataset'],
    ]);
    expect(r.checked).toMatchObject({ objects: 3, dashboards: 1, widgets: 4 });
    expect(await activeRows(scope.tenant)).toEqual([]);
    expect((await readExistingSchema(platform.db, tenantSchema(scope.tenant))).tables.size).toBe(0);
  });

  it('verify over readOverlay sees exactly what the gate sees (a cross-package duplicate is one issue in both)', async () => {
    const tenant = made.next();
    await stageDrafts(platform, { tenant, package: 'one' }, stack(v1));
    expect((await publishPackage(platform, { tenant, package: 'one' })).outcome).toBe('published');
    await stageDrafts(
      platform,
      { tenant, package: 'two' },
      stack({
        objects: [
          { name: 'acct', fields: {} },
          { name: 'other', fields: {} },
        ],
      }),
    );
    const overlay = await readOverlay(platform, { tenant, package: 'two' });
    const verified = verify(overlay.published, overlay.drafts);
    const gate = await publishPackage(platform, { tenant, package: 'two' });
    expect(gate.outcome).toBe('refused');
    if (gate.outcome !== 'refused') return;
    expect(verified.publishable).toBe(false);
    expect(verified.issues).toEqual(gate.issues);
    expect(gate.issues.map((i) => [i.code, i.artifact.name])).toEqual([['duplicate_artifact', 'acct']]);
  });

  it('publishes even when a seed fails, and says so in seedApplied', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    await stageDrafts(
      platform,
      scope,
      stack({
        objects: [{ name: 'acct', fields: { name: { type: 'text' }, opened: { type: 'date' } } }],
        // A date JavaScript reads (so L1 and ObjectStack's write path take it) that PostgreSQL refuses.
        data: [{ object: 'acct', records: [{ name: 'A', opened: '2026-02-30' }] }],
      }),
    );
    const r = await publishPackage(platform, scope);
    expect(r).toMatchObject({
      outcome: 'published',
      seedApplied: {
        success: false,
        inserted: 0,
        errors: [
          { seed: 'acct', object: 'acct', recordIndex: 0, field: 'opened', message: 'row not written: date/time field value out of range: "2026-02-30"' },
        ],
      },
    });
    const log = await platform.db.selectFrom('bvl.publish_log').select(['outcome', 'seed_applied']).where('tenant_id', '=', scope.tenant).execute();
    expect(log).toMatchObject([{ outcome: 'published', seed_applied: { success: false, inserted: 0 } }]);
    expect((await readOverlay(platform, scope)).published.artifacts.map((a) => a.name)).toEqual(['acct', 'acct']);
  });
});
