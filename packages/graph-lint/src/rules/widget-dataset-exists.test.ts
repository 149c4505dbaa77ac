import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './widget-dataset-exists.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'dataset and dashboard both staged as drafts resolve each other (publish-batch closure)',
        drafts: (b) => ({
          datasets: [{ ...b.datasets[0], name: 'exp_new' }],
          dashboards: [{ ...b.dashboards[0], widgets: [{ id: 'n', type: 'metric', dataset: 'exp_new', values: ['expense_count'] }] }],
        }),
      },
      {
        // dashboard.zod.ts: "widget is hidden when the named object is not registered" (cloud-only widgets).
        name: 'a widget gated on a cloud object may be hidden, so its dataset is not judged',
        stack: (s) =>
          s.dashboards[0].widgets.push({ id: 'envs', type: 'metric', dataset: 'cloud_env_metrics', values: ['n'], requiresObject: 'sys_environment' }),
      },
    ],
    invalid: [
      {
        name: "a widget gated on the stack's own object always shows, so it is judged",
        stack: (s) => s.dashboards[0].widgets.push({ id: 'mine', type: 'metric', dataset: 'exp_budget', values: ['n'], requiresObject: 'exp_expense' }),
        errors: [{ code: 'dangling_dataset', artifact: 'dashboard/exp_spending', path: '/widgets/4/dataset' }],
      },
      {
        name: 'retired inline analytics shape: named as such, no guessed patch',
        stack: (s) =>
          (s.dashboards[0].widgets[1] = { id: 'legacy', type: 'bar', object: 'exp_expense', categoryField: 'status', valueField: 'amount', aggregate: 'sum' }),
        errors: [{ code: 'dangling_dataset', artifact: 'dashboard/exp_spending', path: '/widgets/1' }],
      },
      {
        name: 'incident #1: unknown dataset',
        stack: (s) => (s.dashboards[0].widgets[0].dataset = 'exp_budget'),
        errors: [{ code: 'dangling_dataset', artifact: 'dashboard/exp_spending', path: '/widgets/0/dataset' }],
      },
      {
        name: 'typo gets a patch',
        stack: (s) => (s.dashboards[0].widgets[1].dataset = 'exp_expense_metric'),
        errors: [
          {
            code: 'dangling_dataset',
            artifact: 'dashboard/exp_spending',
            path: '/widgets/1/dataset',
            patch: [{ op: 'replace', path: '/widgets/1/dataset', value: 'exp_expense_metrics' }],
          },
        ],
      },
      {
        name: 'no dataset key at all',
        stack: (s) => delete s.dashboards[0].widgets[2].dataset,
        errors: [{ code: 'dangling_dataset', artifact: 'dashboard/exp_spending', path: '/widgets/2' }],
      },
      {
        name: 'draft dashboard flagged as draft',
        drafts: (b) => ({ dashboards: [{ ...b.dashboards[0], widgets: [{ id: 'x', type: 'metric', dataset: 'nope', values: ['a'] }] }] }),
        errors: [{ code: 'dangling_dataset', artifact: 'dashboard/exp_spending', path: '/widgets/0/dataset', draft: true }],
      },
    ],
  }),
);
