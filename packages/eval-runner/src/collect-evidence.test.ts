import { join } from 'node:path';
import { collectStack, readSource } from '@bvl/metadata';
import { type Platform, publishPackage, stageDrafts } from '@bvl/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, tenants } from '../test/test-platform.ts';
import { collectEvidence } from './collect-evidence.ts';

// The I/O shell on a real database (PGlite; PostgreSQL too when DATABASE_URL is set), each test in a fresh tenant.
const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');
let platform: Platform;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform();
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

describe('collectEvidence', () => {
  it('gathers a published package: the app, rows per object, seeds, probes and the DOM sweep, as plain JSON', async () => {
    const scope = { tenant: made.next('ev'), package: 'app' };
    await stageDrafts(platform, scope, await readSource(join(EXAMPLE, 'app'), { draft: true }));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const { evidence, probes } = await collectEvidence(platform, { ...scope, rounds: 1 });
    expect(JSON.parse(JSON.stringify(evidence))).toEqual(evidence);
    expect(evidence).toMatchObject({
      published: true,
      rounds: 1,
      rowCounts: { exp_category: 3, exp_expense: 4, exp_report: 2 },
      seedApplied: { success: true, inserted: 9, updated: 0, skipped: 0, errors: 0 },
      probes: { issues: [], checked: probes.checked, total: probes.total },
      dom: { errorBoxes: 0, emptyWidgets: 0 },
    });
    expect(evidence.app.objects.map((o) => o.name)).toEqual(['exp_category', 'exp_expense', 'exp_report']);
    expect(evidence.app.views.map((v) => [v.name, v.kind, v.type])).toEqual([
      ['exp_expense.board', 'list', 'kanban'],
      ['exp_expense.by_day', 'list', 'calendar'],
      ['exp_expense.create', 'form', 'simple'],
      ['exp_expense.default', 'list', 'grid'],
      ['exp_report.default', 'list', 'grid'],
    ]);
    expect(evidence.app.navigation).toEqual({ apps: ['exp_app'], objects: ['exp_expense', 'exp_report'], dashboards: ['exp_spending'] });
    const spending = evidence.dom?.artifacts.find((a) => a.name === 'exp_spending');
    expect(spending?.widgets?.map((w) => [w.id, w.rows > 0, w.error])).toEqual([
      ['total', true, undefined],
      ['by_status', true, undefined],
      ['by_category', true, undefined],
      ['monthly', true, undefined],
    ]);
    expect(evidence.dom?.artifacts.find((a) => a.name === 'exp_expense.default')?.rows).toBe(4);
  });

  it('a package that only staged drafts was not published: empty app, nothing probed, nothing swept', async () => {
    const scope = { tenant: made.next('ev'), package: 'app' };
    await stageDrafts(platform, scope, await readSource(join(EXAMPLE, 'app'), { draft: true }));
    const { evidence } = await collectEvidence(platform, scope);
    expect(evidence).toEqual({
      published: false,
      app: { objects: [], views: [], dashboards: [], navigation: { apps: [], objects: [], dashboards: [] } },
      rowCounts: {},
      probes: { issues: [], checked: { seeds: 0, views: 0, widgets: 0, objects: 0 }, total: { seeds: 0, views: 0, widgets: 0, objects: 0 } },
      dom: { artifacts: [], errorBoxes: 0, emptyWidgets: 0 },
    });
  });

  it('a seed that never lands shows in rows, seeds and probes', async () => {
    const scope = { tenant: made.next('ev'), package: 'app' };
    const stack = {
      // A well-formed date that does not exist: every static check passes, PostgreSQL refuses the row.
      objects: [{ name: 'item', fields: { name: { type: 'text' }, sold_on: { type: 'date' } } }],
      data: [{ object: 'item', records: [{ name: 'A', sold_on: '2026-02-30' }] }],
    };
    await stageDrafts(platform, scope, collectStack(stack, { draft: true }));
    expect((await publishPackage(platform, scope)).outcome).toBe('published');
    const { evidence } = await collectEvidence(platform, scope);
    expect(evidence).toMatchObject({ published: true, rowCounts: { item: 0 }, seedApplied: { success: false, inserted: 0, errors: 1 } });
    expect(evidence.probes?.issues).toEqual([{ code: 'seed_not_applied', severity: 'error', artifact: { type: 'seed', name: 'item' } }]);
  });
});
