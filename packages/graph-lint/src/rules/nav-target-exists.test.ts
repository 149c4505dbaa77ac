import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './nav-target-exists.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'view by full name', stack: (s) => (s.apps[0].navigation[0].children[1].viewName = 'exp_expense.board') },
      {
        name: 'report and page targets',
        stack: (s) => {
          s.reports = [{ name: 'r1' }];
          s.pages = [{ name: 'p1' }];
          s.apps[0].navigation.push(
            { id: 'r', type: 'report', reportName: 'r1' },
            { id: 'p', type: 'page', pageName: 'p1' },
            { id: 'u', type: 'url', url: 'https://x' },
            { id: 's', type: 'separator' },
          );
        },
      },
      {
        name: 'item types named like prototype members are not targets',
        stack: (s) => s.apps[0].navigation.push({ id: 'c', type: 'constructor' }, { id: 't', type: 'toString' }),
      },
      {
        name: "an object's own listViews are nav targets",
        stack: (s) => {
          s.objects[1].listViews = { mine: { type: 'grid', columns: ['title'] } };
          s.apps[0].navigation.push({ id: 'm', type: 'object', objectName: 'exp_expense', viewName: 'mine' });
        },
      },
      { name: 'areas', stack: (s) => (s.apps[0].areas = [{ id: 'a', navigation: [{ id: 'x', type: 'dashboard', dashboardName: 'exp_spending' }] }]) },
      {
        name: 'platform objects of any provider are object targets (sys_audit_log, sys_app)',
        stack: (s) =>
          s.apps[0].navigation.push({ id: 'audit', type: 'object', objectName: 'sys_audit_log' }, { id: 'apps', type: 'object', objectName: 'sys_app' }),
      },
      {
        // ObjectStack hides an item whose requiresObject is not registered: cloud and plugin objects may be absent.
        name: 'requiresObject on a cloud or plugin object: the item (and its children) may be hidden, so it is not judged',
        stack: (s) =>
          s.apps[0].navigation.push(
            { id: 'envs', type: 'dashboard', dashboardName: 'cloud_overview', requiresObject: 'sys_environment' },
            { id: 'grp2', type: 'group', requiresObject: 'sys_approval_request', children: [{ id: 'x', type: 'page', pageName: 'approvals' }] },
          ),
      },
    ],
    invalid: [
      {
        name: 'requiresObject on a declared or core platform object: the item always shows, so it is judged',
        stack: (s) =>
          s.apps[0].navigation.push(
            { id: 'mine', type: 'dashboard', dashboardName: 'missing_one', requiresObject: 'exp_expense' },
            { id: 'users', type: 'dashboard', dashboardName: 'missing_two', requiresObject: 'sys_user' },
          ),
        errors: [
          { code: 'dangling_nav_target', artifact: 'app/exp_app', path: '/navigation/1/dashboardName' },
          { code: 'dangling_nav_target', artifact: 'app/exp_app', path: '/navigation/2/dashboardName' },
        ],
      },
      {
        name: 'requiresObject naming no object at all: the item never shows',
        stack: (s) => s.apps[0].navigation.push({ id: 'gated', type: 'dashboard', dashboardName: 'exp_spending', requiresObject: 'exp_expnse' }),
        errors: [
          {
            code: 'dangling_nav_target',
            artifact: 'app/exp_app',
            path: '/navigation/1/requiresObject',
            patch: [{ op: 'replace', path: '/navigation/1/requiresObject', value: 'exp_expense' }],
          },
        ],
      },
      {
        name: 'every kind of target, nested',
        stack: (s) =>
          s.apps[0].navigation.push({
            id: 'g2',
            type: 'group',
            children: [
              { id: 'o', type: 'object', objectName: 'exp_expenses' },
              { id: 'v', type: 'object', objectName: 'exp_expense', viewName: 'bord' },
              { id: 'd', type: 'dashboard', dashboardName: 'spending' },
              {
                id: 'g3',
                type: 'group',
                children: [
                  { id: 'r', type: 'report', reportName: 'r1' },
                  { id: 'p', type: 'page', pageName: 'p1' },
                  { id: 'n', type: 'dashboard' },
                ],
              },
            ],
          }),
        errors: [
          {
            code: 'dangling_nav_target',
            artifact: 'app/exp_app',
            path: '/navigation/1/children/0/objectName',
            patch: [{ op: 'replace', path: '/navigation/1/children/0/objectName', value: 'exp_expense' }],
          },
          { code: 'dangling_nav_target', artifact: 'app/exp_app', path: '/navigation/1/children/1/viewName', suggestion: 'board' },
          { code: 'dangling_nav_target', artifact: 'app/exp_app', path: '/navigation/1/children/2/dashboardName' },
          { code: 'dangling_nav_target', artifact: 'app/exp_app', path: '/navigation/1/children/3/children/0/reportName' },
          { code: 'dangling_nav_target', artifact: 'app/exp_app', path: '/navigation/1/children/3/children/1/pageName' },
          { code: 'dangling_nav_target', artifact: 'app/exp_app', path: '/navigation/1/children/3/children/2' },
        ],
      },
    ],
  }),
);
