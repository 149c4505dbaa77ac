import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
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
