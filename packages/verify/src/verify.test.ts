import { join } from 'node:path';
import { BuildIssueSchema } from '@bvl/build-issue';
import { readSource } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { verify } from './verify.ts';

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');

describe('verify', () => {
  it('is clean and publishable on the correct example app, and counts what it checked', async () => {
    const v = verify(await readSource(join(EXAMPLE, 'app')));
    expect(v.issues).toEqual([]);
    expect(v.publishable).toBe(true);
    expect(v.checked).toEqual({ objects: 3, views: 5, dashboards: 1, widgets: 4, datasets: 1, apps: 1, seeds: 3, schemas: 9, compiledDatasets: 1 });
  });

  it('finds ADR-0038 incidents #1, #2 and #6 in the drafts: sorted, valid issues, not publishable', async () => {
    const v = verify(await readSource(join(EXAMPLE, 'app')), await readSource(join(EXAMPLE, 'drafts'), { draft: true }));
    expect(v.publishable).toBe(false);
    for (const i of v.issues) expect(BuildIssueSchema.parse(i)).toEqual(i);
    expect(v.issues.map((i) => [i.code, i.artifact.name, i.path, i.draft])).toEqual([
      ['unknown_measure', 'exp_spending', '/widgets/0/values/0', true],
      ['dangling_dataset', 'exp_spending', '/widgets/2/dataset', true],
      // The spec refuses `type: "list"` (an error, whatever objectui would draw); the view draft is a view item, so
      // its path addresses the config inside that document.
      ['invalid_artifact', 'exp_expense.recent', '/config/type', true],
    ]);
    expect(v.issues[0]).toMatchObject({ patch: [{ op: 'replace', path: '/widgets/0/values/0', value: 'total_amount' }], fixSafety: 'safe' });
  });

  it('judges against the target: what its spec refuses is an error on every renderer profile', async () => {
    const published = await readSource(join(EXAMPLE, 'app'));
    const drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
    for (const renderer of ['objectui-2026-02', 'objectui-2026-09']) {
      const recent = verify(published, drafts, { renderer, spec: 'objectstack-17.4' }).issues.filter((i) => i.artifact.name === 'exp_expense.recent');
      expect(recent.map((i) => [i.code, i.severity, i.layer])).toEqual([['invalid_artifact', 'error', 'graph']]);
      expect(recent[0]?.message).toContain('(ListViewSchema.type)');
    }
    expect(() => verify(published, drafts, { spec: 'objectstack-1.0' })).toThrow(/unknown spec "objectstack-1.0" \(known: objectstack-17.4\)/);
  });

  it('runs only the layers asked for', async () => {
    const v = verify(await readSource(join(EXAMPLE, 'app')), await readSource(join(EXAMPLE, 'drafts'), { draft: true }), { layers: new Set(['graph']) });
    expect(v.issues.map((i) => i.layer)).toEqual(['graph', 'graph', 'graph']);
    expect(v.checked.schemas).toBeUndefined();
  });

  it('is byte-stable: the same input gives the same stream', async () => {
    const published = await readSource(join(EXAMPLE, 'app'));
    const drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
    expect(JSON.stringify(verify(published, drafts).issues)).toBe(JSON.stringify(verify(published, drafts).issues));
  });
});
