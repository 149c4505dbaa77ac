import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../test/test-app.ts';
import { fixFiles } from './fix-files.ts';

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-fix-'));
  await cp(EXAMPLE, cwd, { recursive: true });
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

const read = async (file: string) => JSON.parse(await readFile(join(cwd, file), 'utf8'));
const errors = (issues: Array<{ code: string; severity: string }>) => issues.filter((i) => i.severity === 'error').map((i) => i.code);

describe('fixFiles', () => {
  it('applies the safe patches to the per-artifact files they came from, and leaves the rest to the agent', async () => {
    const r = await fixFiles(cwd, { path: 'app', drafts: 'drafts' });
    expect(r.changes).toEqual([
      {
        file: 'drafts/dashboards/exp_spending.json',
        artifact: { type: 'dashboard', name: 'exp_spending' },
        path: '/widgets/0/values/0',
        old: 'amount',
        new: 'total_amount',
        code: 'unknown_measure',
      },
      {
        file: 'drafts/views/exp_expense_recent.json',
        artifact: { type: 'view', name: 'exp_expense.recent' },
        path: '/config/type',
        old: 'list',
        new: 'grid',
        code: 'invalid_artifact',
      },
    ]);
    expect(r.written).toEqual(['drafts/dashboards/exp_spending.json', 'drafts/views/exp_expense_recent.json']);
    expect(errors(r.issues)).toEqual(['dangling_dataset']);
    expect(r.ok).toBe(false);
    expect((await read('drafts/dashboards/exp_spending.json')).widgets[0].values).toEqual(['total_amount']);
    expect((await read('drafts/views/exp_expense_recent.json')).config.type).toBe('grid');
    // Nothing else in the folder changed.
    expect(await readFile(join(cwd, 'app/dashboards/exp_spending.json'), 'utf8')).toBe(
      await readFile(join(EXAMPLE, 'app/dashboards/exp_spending.json'), 'utf8'),
    );
  });

  it('a view inside a container file is patched at its place in the container', async () => {
    const container = await read('app/views/exp_expense.json');
    container.listViews.board.type = 'list';
    await writeFile(join(cwd, 'app/views/exp_expense.json'), JSON.stringify(container));
    const r = await fixFiles(cwd, { path: 'app' });
    expect(r.changes.map((c) => [c.file, c.artifact.name, c.path, c.new])).toEqual([
      ['app/views/exp_expense.json', 'exp_expense.board', '/listViews/board/type', 'grid'],
    ]);
    expect((await read('app/views/exp_expense.json')).listViews.board.type).toBe('grid');
    expect(r.ok).toBe(true);
  });

  it('a dry run reports the changes and writes nothing', async () => {
    const before = await readFile(join(cwd, 'drafts/dashboards/exp_spending.json'), 'utf8');
    const r = await fixFiles(cwd, { path: 'app', drafts: 'drafts' }, { dryRun: true });
    expect(r.changes).toHaveLength(2);
    expect(r.written).toEqual([]);
    // The issues are what would remain after the fixes (as bvl fix --dry-run reports them).
    expect(errors(r.issues)).toEqual(['dangling_dataset']);
    expect(await readFile(join(cwd, 'drafts/dashboards/exp_spending.json'), 'utf8')).toBe(before);
  });

  it('a stack file is fixed in place, keeping its formatting (the same fixer as bvl fix)', async () => {
    const stack = {
      dashboards: [await read('drafts/dashboards/exp_spending.json')],
      datasets: [await read('app/datasets/exp_expense_metrics.json')],
      objects: [await read('app/objects/exp_expense.json'), await read('app/objects/exp_category.json'), await read('app/objects/exp_report.json')],
    };
    const text = JSON.stringify(stack, null, 4);
    await writeFile(join(cwd, 'stack.json'), text);
    const r = await fixFiles(cwd, { path: 'stack.json' });
    expect(r.written).toEqual(['stack.json']);
    expect(r.changes.map((c) => [c.file, c.path, c.old, c.new])).toEqual([['stack.json', '/dashboards/0/widgets/0/values/0', 'amount', 'total_amount']]);
    const after = await readFile(join(cwd, 'stack.json'), 'utf8');
    expect(after).toBe(text.replace('"amount"', '"total_amount"'));
  });
});
