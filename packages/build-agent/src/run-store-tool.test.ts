import { join } from 'node:path';
import { type ArtifactSet, readSource } from '@bvl/metadata';
import { listDrafts, type Platform, publishPackage, stageDrafts } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discardDraft, getArtifact, listArtifacts, retireArtifact, stageDraft } from './run-store-tool.ts';

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');
let platform: Platform;
let app: ArtifactSet;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => new Date('2026-03-15T10:00:00Z'));
  app = await readSource(join(EXAMPLE, 'app'), { draft: true });
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

async function published() {
  const scope = { tenant: made.next(), package: 'app' };
  await stageDrafts(platform, scope, app);
  expect((await publishPackage(platform, scope)).outcome).toBe('published');
  return scope;
}
const content = (a: { content: unknown }) => a.content as any;

describe('the store tools', () => {
  it('list_artifacts shows each artifact once with its state: published, draft, a draft that changes it, retiring, another package’s', async () => {
    const scope = await published();
    await stageDrafts(platform, { tenant: scope.tenant, package: 'other' }, [
      { type: 'object', name: 'zz_note', body: { name: 'zz_note', fields: { title: { type: 'text' } } }, source: { pointer: '' }, draft: true },
    ]);
    await publishPackage(platform, { tenant: scope.tenant, package: 'other' });
    await stageDraft(platform, scope, { type: 'dataset', name: 'exp_expense_metrics', body: app.artifacts.find((a) => a.type === 'dataset')!.body as any });
    await stageDraft(platform, scope, { type: 'object', name: 'exp_budget', body: { fields: { amount: { type: 'currency' } } } });
    await retireArtifact(platform, scope, 'app', 'exp_app');
    const all = content(await listArtifacts(platform, scope, null));
    const state = (type: string, name: string) => all.artifacts.find((a: any) => a.type === type && a.name === name)?.state;
    expect(all.count).toBe(all.artifacts.length);
    expect(new Set(all.artifacts.map((a: any) => `${a.type} ${a.name}`)).size).toBe(all.count);
    expect(state('object', 'exp_expense')).toBe('published');
    expect(state('dataset', 'exp_expense_metrics')).toBe('draft (changes the published one)');
    expect(state('object', 'exp_budget')).toBe('draft');
    expect(state('app', 'exp_app')).toBe('retiring (a draft removes it)');
    expect(state('object', 'zz_note')).toBe('published by package other (read-only here)');
    const views = content(await listArtifacts(platform, scope, 'view'));
    expect(views.artifacts.map((a: any) => a.name)).toEqual([
      'exp_expense.board',
      'exp_expense.by_day',
      'exp_expense.create',
      'exp_expense.default',
      'exp_report.default',
    ]);
  });

  it('get_artifact returns a view as a view item that stage_draft takes back unchanged', async () => {
    const scope = await published();
    const got = content(await getArtifact(platform, scope, 'view', 'exp_expense.board'));
    expect(got).toMatchObject({
      type: 'view',
      name: 'exp_expense.board',
      state: 'published',
      body: { name: 'exp_expense.board', object: 'exp_expense', viewKind: 'list' },
    });
    expect(got.body.config.kanban).toEqual({ groupByField: 'status', columns: ['title', 'amount'] });
    const staged = content(await stageDraft(platform, scope, { type: 'view', name: 'exp_expense.board', body: got.body }));
    expect(staged).toMatchObject({ staged: ['view exp_expense.board'], issues: [] });
    expect(content(await getArtifact(platform, scope, 'view', 'exp_expense.board'))).toEqual({ ...got, state: 'draft' });
    // A container's name lists its views; a typo gets a did-you-mean.
    expect((await getArtifact(platform, scope, 'view', 'exp_expense')).content).toEqual({
      error: 'no view named "exp_expense"; the views of exp_expense are: exp_expense.board, exp_expense.by_day, exp_expense.create, exp_expense.default',
    });
    expect((await getArtifact(platform, scope, 'dataset', 'exp_expense_metric')).content).toEqual({
      error: 'no dataset named "exp_expense_metric"; did you mean exp_expense_metrics?',
    });
  });

  it('stage_draft answers with the L1+L2 issues of what it staged; discard_draft drops a container’s views by its object', async () => {
    const scope = await published();
    const r = await stageDraft(platform, scope, {
      type: 'view',
      name: 'exp_report',
      body: { list: { type: 'list', data: { provider: 'object', object: 'exp_report' }, columns: ['code', 'amount'] } },
    });
    expect(r.changed).toBe(true);
    expect(content(r).staged).toEqual(['view exp_report.default']);
    expect(content(r).issues.map((i: any) => [i.code, `${i.artifact.type} ${i.artifact.name}`, i.path])).toEqual([
      ['unknown_field', 'view exp_report.default', '/list/columns/1'],
      ['invalid_artifact', 'view exp_report.default', '/list/type'],
    ]);
    expect(content(await discardDraft(platform, scope, 'view', 'exp_report'))).toEqual({ discarded: ['view exp_report.default'], count: 1 });
    expect(await listDrafts(platform, scope)).toEqual([]);
    expect((await discardDraft(platform, scope, 'view', 'exp_report')).content).toEqual({ error: 'no draft of view "exp_report"' });
  });
});
