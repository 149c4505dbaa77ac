import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeIssue } from '@bvl/build-issue';
import { describe, expect, it } from 'vitest';
import { buildGraph, rebaseViewPaths } from './graph.ts';
import { locateIssues, locateNotices } from './locate-issues.ts';
import { readSource } from './read-source.ts';

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');

describe('locateIssues', () => {
  it('places a folder issue in its file, with line/column and the patch in file coordinates', async () => {
    const published = await readSource('app', { cwd: EXAMPLE });
    const drafts = await readSource('drafts', { cwd: EXAMPLE, draft: true });
    const { graph } = buildGraph(published, drafts);
    const patch = [{ op: 'replace' as const, path: '/widgets/0/values/0', value: 'total_amount' }];
    const issues = rebaseViewPaths(graph, [
      makeIssue({ code: 'unknown_measure', artifact: { type: 'dashboard', name: 'exp_spending' }, message: 'm', path: '/widgets/0/values/0', patch }),
      makeIssue({
        code: 'typeless_schema',
        artifact: { type: 'view', name: 'exp_expense.recent' },
        message: 'm',
        path: '/type',
        patch: [{ op: 'replace', path: '/type', value: 'grid' }],
      }),
    ]);
    const [measure, view] = locateIssues(issues, graph, [published, drafts]);
    expect(measure!.location).toEqual({
      file: 'drafts/dashboards/exp_spending.json',
      pointer: '/widgets/0/values/0',
      line: 4,
      column: 110,
      endLine: 4,
      endColumn: 118,
      patch,
    });
    // The view item's config is at /config of its document; the issue path already addresses the document.
    expect(view!.path).toBe('/config/type');
    expect(view!.location).toMatchObject({ file: 'drafts/views/exp_expense_recent.json', pointer: '/config/type', line: 2, column: 34 });
    expect(view!.location!.patch).toEqual([{ op: 'replace', path: '/config/type', value: 'grid' }]);
  });

  it('in a stack file or an array file, prefixes the artifact’s place; load problems stay where they were found', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-locate-'));
    const stack = {
      objects: [{ name: 'o', fields: { title: { type: 'text' } } }],
      views: [{ list: { type: 'grid', data: { object: 'o' }, columns: ['title'] }, listViews: { board: { type: 'kanban', data: { object: 'o' } } } }],
      dashboards: [
        { name: 'd', widgets: [] },
        { name: 'd', widgets: [] },
      ],
    };
    writeFileSync(join(dir, 'stack.json'), JSON.stringify(stack, null, 2));
    mkdirSync(join(dir, 'app', 'views'), { recursive: true });
    writeFileSync(
      join(dir, 'app', 'views', 'all.json'),
      JSON.stringify(
        [
          { name: 'o.a', object: 'o', viewKind: 'list', config: { type: 'grid' } },
          { name: 'o.b', object: 'o', viewKind: 'list', config: { type: 'grud' } },
        ],
        null,
        2,
      ),
    );
    const set = await readSource('stack.json', { cwd: dir });
    const { graph, issues: load } = buildGraph(set);
    const issues = rebaseViewPaths(graph, [
      ...load,
      makeIssue({
        code: 'unknown_field',
        artifact: { type: 'view', name: 'o.board' },
        message: 'm',
        path: '/columns/0',
        patch: [{ op: 'add', path: '/columns', value: [] }],
      }),
    ]);
    const located = locateIssues(issues, graph, [set]);
    const dup = located.find((i) => i.code === 'duplicate_artifact')!;
    expect(dup.location).toMatchObject({ file: 'stack.json', pointer: '/dashboards/1' });
    const board = located.find((i) => i.code === 'unknown_field')!;
    expect(board.path).toBe('/listViews/board/columns/0');
    // The member is absent: the pointer is exact, the line is its nearest existing ancestor's.
    expect(board.location).toMatchObject({ file: 'stack.json', pointer: '/views/0/listViews/board/columns/0' });
    expect(board.location!.patch).toEqual([{ op: 'add', path: '/views/0/listViews/board/columns', value: [] }]);

    const folder = await readSource('app', { cwd: dir });
    const g2 = buildGraph(folder).graph;
    const [b] = locateIssues(
      rebaseViewPaths(g2, [
        makeIssue({
          code: 'typeless_schema',
          artifact: { type: 'view', name: 'o.b' },
          message: 'm',
          path: '/type',
          patch: [{ op: 'replace', path: '/type', value: 'grid' }],
        }),
      ]),
      g2,
      [folder],
    );
    expect(b!.location).toMatchObject({ file: 'app/views/all.json', pointer: '/1/config/type', line: 15 });
    expect(b!.location!.patch).toEqual([{ op: 'replace', path: '/1/config/type', value: 'grid' }]);
  });
});

describe('notices', () => {
  it('warns about a stack with nothing bvl reads, a near-miss key, an unknown folder, stray files and a mistyped nav item', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-notice-'));
    writeFileSync(join(dir, 'empty.json'), '{}');
    writeFileSync(join(dir, 'typo.json'), JSON.stringify({ dashbaords: [], objects: [{ name: 'o' }] }));
    expect((await readSource('empty.json', { cwd: dir })).notices?.map((n) => n.message)).toEqual([
      expect.stringMatching(/^empty.json holds no artifacts bvl reads/),
    ]);
    expect((await readSource('typo.json', { cwd: dir })).notices?.map((n) => n.message)).toEqual([
      'The stack\'s "dashbaords" is not read (did you mean "dashboards"?); what it holds is not checked.',
    ]);
    mkdirSync(join(dir, 'app', 'objects', 'nested'), { recursive: true });
    mkdirSync(join(dir, 'app', 'view'));
    mkdirSync(join(dir, 'app', 'apps'));
    writeFileSync(join(dir, 'app', 'objects', 'o.json'), '{"name":"o"}');
    writeFileSync(join(dir, 'app', 'objects', 'o.yaml'), 'name: o');
    writeFileSync(
      join(dir, 'app', 'apps', 'a.json'),
      JSON.stringify({ name: 'a', navigation: [{ id: 'g', type: 'group', children: [{ id: 'd', type: 'dashbaord', dashboardName: 'nope' }] }] }, null, 2),
    );
    const set = await readSource('app', { cwd: dir });
    expect(locateNotices([set]).map((n) => [n.file, n.line, n.message])).toEqual([
      ['app/objects/nested', undefined, 'app/objects/nested/ is not read: bvl reads the *.json files directly inside app/objects/, not subfolders.'],
      ['app/objects/o.yaml', undefined, 'app/objects/o.yaml is not read: bvl reads only *.json files.'],
      ['app/view', undefined, expect.stringMatching(/^app\/view\/ is not read: it is not an artifact folder \(did you mean views\/\?\)/)],
      [
        'app/apps/a.json',
        10,
        'App "a": navigation item "d" has type "dashbaord", which is not a navigation item type (did you mean "dashboard"?), so where it leads is not checked.',
      ],
    ]);
  });
});
