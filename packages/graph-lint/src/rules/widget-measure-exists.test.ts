import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './widget-measure-exists.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [{ name: 'derived measure is selectable', stack: (s) => (s.dashboards[0].widgets[0].values = ['avg_amount']) }],
    invalid: [
      {
        name: 'incident #2: base field name instead of measure name',
        stack: (s) => (s.dashboards[0].widgets[0].values = ['amount']),
        errors: [
          {
            code: 'unknown_measure',
            artifact: 'dashboard/exp_spending',
            path: '/widgets/0/values/0',
            suggestion: 'total_amount',
            patch: [{ op: 'replace', path: '/widgets/0/values/0', value: 'total_amount' }],
            fixSafety: 'safe',
          },
        ],
      },
      {
        name: 'two unfiltered measures on the base field: the best guess is an unsafe patch, left to the agent',
        stack: (s) => {
          s.datasets[0].measures.push({ name: 'max_amount', aggregate: 'max', field: 'amount' });
          s.dashboards[0].widgets[0].values = ['amount'];
        },
        errors: [
          {
            code: 'unknown_measure',
            artifact: 'dashboard/exp_spending',
            path: '/widgets/0/values/0',
            patch: [{ op: 'replace', path: '/widgets/0/values/0', value: 'total_amount' }],
            fixSafety: 'unsafe',
          },
        ],
      },
      {
        name: 'every unknown value is reported',
        stack: (s) => (s.dashboards[0].widgets[3].values = ['total_amount', 'x1', 'x2']),
        errors: [
          { code: 'unknown_measure', artifact: 'dashboard/exp_spending', path: '/widgets/3/values/1' },
          { code: 'unknown_measure', artifact: 'dashboard/exp_spending', path: '/widgets/3/values/2' },
        ],
      },
      {
        name: 'a dimension name is not a measure',
        stack: (s) => (s.dashboards[0].widgets[0].values = ['status']),
        errors: [{ code: 'unknown_measure', artifact: 'dashboard/exp_spending', path: '/widgets/0/values/0' }],
      },
    ],
  }),
);
