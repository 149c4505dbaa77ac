import { buildGraph, collectStack, SPEC_PROFILES } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { lintGraph } from '../lint-graph.ts';
import { baseStack, ruleTester } from '../rule-tester.ts';
import rule from './spec-refusals.ts';

const board = (s: { views: any[] }) => s.views[0].listViews.board;
const widget = (s: { dashboards: any[] }, i: number) => s.dashboards[0].widgets[i];

describe(rule.meta.name, () => {
  ruleTester(rule, {
    valid: [
      { name: 'every list view type of the spec', stack: (s) => (board(s).type = 'tree') },
      { name: 'a page view (the spec accepts it; the renderer decides)', stack: (s) => (s.views[0].list.type = 'page') },
      { name: 'every chart type of the spec', stack: (s) => (widget(s, 1).type = 'horizontal-bar') },
      { name: 'a kanban type without a kanban block (the renderer decides)', stack: (s) => delete board(s).kanban },
      { name: 'no type (the spec default)', stack: (s) => delete s.views[0].list.type },
      { name: 'the renamed key under its new name', stack: (s) => (s.dashboards[0].refreshIntervalSeconds = 60) },
    ],
    invalid: [
      {
        name: 'a list view of type "list" (a viewKind, not a type)',
        stack: (s) => (s.views[0].list.type = 'list'),
        errors: [{ code: 'invalid_artifact', artifact: 'view/exp_expense.default', path: '/type', patch: [{ op: 'replace', path: '/type', value: 'grid' }] }],
      },
      {
        name: 'a misspelt list view type',
        stack: (s) => (board(s).type = 'kanbn'),
        errors: [{ code: 'invalid_artifact', artifact: 'view/exp_expense.board', path: '/type', suggestion: 'kanban' }],
      },
      {
        name: 'a form view type of another family',
        stack: (s) => (s.views[0].formViews.create.type = 'grid'),
        errors: [{ code: 'invalid_artifact', artifact: 'view/exp_expense.create', path: '/type' }],
      },
      {
        name: 'chart types the newest objectui draws as a bar, which the spec refuses',
        stack: (s) => {
          widget(s, 1).type = 'stacked-bar';
          widget(s, 3).type = 'spline';
        },
        errors: [
          { code: 'invalid_artifact', artifact: 'dashboard/exp_spending', path: '/widgets/1/type' },
          { code: 'invalid_artifact', artifact: 'dashboard/exp_spending', path: '/widgets/3/type' },
        ],
      },
      {
        name: 'retired view, widget and dashboard keys',
        stack: (s) => {
          s.views[0].list.striped = true;
          s.views[0].formViews.create.defaultSort = 'title';
          widget(s, 0).actionUrl = '/x';
          s.dashboards[0].refreshInterval = 60;
        },
        errors: [
          { code: 'invalid_artifact', artifact: 'view/exp_expense.default', path: '/striped', patch: [{ op: 'remove', path: '/striped' }] },
          { code: 'invalid_artifact', artifact: 'view/exp_expense.create', path: '/defaultSort' },
          { code: 'invalid_artifact', artifact: 'dashboard/exp_spending', path: '/widgets/0/actionUrl' },
          { code: 'invalid_artifact', artifact: 'dashboard/exp_spending', path: '/refreshInterval', patch: null },
        ],
      },
      {
        name: 'a kanban block without groupByField',
        stack: (s) => delete board(s).kanban.groupByField,
        errors: [{ code: 'invalid_artifact', artifact: 'view/exp_expense.board', path: '/kanban/groupByField', patch: null }],
      },
    ],
  });

  it('names the spec rule and the release in the message', () => {
    const s = baseStack();
    s.views[0].list.type = 'list';
    const { graph } = buildGraph(collectStack(s));
    const [issue] = lintGraph(graph, [rule]);
    expect(issue?.severity).toBe('error');
    expect(issue?.message).toContain('ObjectStack spec 17.4.0 (ListViewSchema.type)');
    expect(graph.spec).toBe(SPEC_PROFILES['objectstack-17.4']);
  });
});
