import { describe, expect, it } from 'vitest';
import { ruleTester, runCase } from '../rule-tester.ts';
import rule from './view-object-exists.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'objectName alias',
        stack: (s) => {
          s.views[1].list.data = undefined;
          s.views[1].list.objectName = 'exp_report';
        },
      },
      {
        name: 'api-provided view needs no object',
        stack: (s) =>
          s.views.push({
            name: 'feed.default',
            viewKind: 'list',
            object: 'feed',
            config: { type: 'grid', data: { provider: 'api', read: '/x' }, columns: [] },
          }),
      },
      {
        name: 'platform object',
        stack: (s) => s.views.push({ list: { type: 'grid', data: { provider: 'object', object: 'sys_user' }, columns: ['name', 'email'] } }),
      },
    ],
    invalid: [
      {
        name: "a view item's own object binding: no patch into the config",
        stack: (s) =>
          s.views.push({
            name: 'exp_expens.mine',
            object: 'exp_expens',
            viewKind: 'list',
            config: { type: 'grid', data: { provider: 'object', object: 'exp_expense' }, columns: [] },
          }),
        errors: [{ code: 'dangling_object', artifact: 'view/exp_expens.mine', path: '', suggestion: 'exp_expense' }],
      },
      {
        name: 'unknown object, typo with patch',
        stack: (s) => (s.views[1].list.data.object = 'exp_reports'),
        errors: [
          {
            code: 'dangling_object',
            artifact: 'view/exp_reports.default',
            path: '/data/object',
            patch: [{ op: 'replace', path: '/data/object', value: 'exp_report' }],
          },
        ],
      },
      {
        name: 'user instead of sys_user',
        stack: (s) => s.views.push({ name: 'user.list', viewKind: 'list', object: 'user', columns: ['name'] }),
        errors: [{ code: 'dangling_object', artifact: 'view/user.list', path: '/object' }],
      },
      {
        name: 'inline view bound to nothing',
        stack: (s) => s.views.push({ name: 'orphan', viewKind: 'list', type: 'grid', columns: ['a'] }),
        errors: [{ code: 'dangling_object', artifact: 'view/views[2].orphan', path: '' }],
      },
    ],
  }),
);

describe(`${rule.meta.name}: what the message lists`, () => {
  it("lists the stack's objects, never hiding platform ones behind a prefix filter", () => {
    const [issue] = runCase(rule, { name: 'typo', stack: (s) => s.views.push({ name: 'x.list', viewKind: 'list', object: 'exp_expens', columns: ['title'] }) });
    expect(issue?.message).toContain('(objects: exp_category, exp_expense, exp_report)');
    expect(issue?.suggestions?.[0]).toBe('exp_expense');
  });
  it('lists platform objects, closest first, for a platform-style name or a stack that declares no object', () => {
    const [issue] = runCase(rule, {
      name: 'platform typo',
      stack: (s) => {
        s.objects = [];
        s.views = [{ name: 'u.list', viewKind: 'list', object: 'sys_usr', columns: ['name'] }];
      },
    });
    expect(issue?.message).toMatch(/\(the stack declares no object; platform objects: sys_user, /);
    expect(issue?.suggestions?.[0]).toBe('sys_user');
  });
});
