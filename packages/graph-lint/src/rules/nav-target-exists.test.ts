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
    ],
    invalid: [
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
