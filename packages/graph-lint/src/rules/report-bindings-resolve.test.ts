import { describe } from 'vitest';
import { ruleTester, type Stack } from '../rule-tester.ts';
import rule from './report-bindings-resolve.ts';

const report = (body: Record<string, unknown>) => (s: Stack) => {
  s.reports = [{ name: 'spend', label: 'Spend', type: 'summary', ...body }];
};
const DS = 'exp_expense_metrics';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'summary report on dataset dimensions and measures',
        stack: report({ dataset: DS, rows: ['status'], values: ['total_amount', 'expense_count'] }),
      },
      {
        name: 'matrix with columns and a runtime filter on a dimension and on a field',
        stack: report({
          type: 'matrix',
          dataset: DS,
          rows: ['status'],
          columns: ['month'],
          values: ['total_amount'],
          runtimeFilter: { category: 'Travel', amount: { $gt: 5 } },
        }),
      },
      {
        name: 'a chart plotting what the report selects',
        stack: report({ dataset: DS, rows: ['status'], values: ['total_amount'], chart: { type: 'bar', xAxis: 'status', yAxis: 'total_amount' } }),
      },
      {
        name: 'a joined report whose blocks resolve',
        stack: report({ type: 'joined', blocks: [{ name: 'a', dataset: DS, rows: ['category'], values: ['avg_amount'] }] }),
      },
      {
        name: 'a tabular report on an object',
        stack: report({ type: 'tabular', objectName: 'exp_expense', columns: [{ field: 'title' }, 'category.name', 'created_at'] }),
      },
      { name: 'a report with neither dataset nor object is not judged', stack: report({}) },
      {
        name: 'a tabular report on a dataset lists dimensions or fields of its object',
        stack: report({ type: 'tabular', dataset: DS, columns: ['status', 'title', 'category.name'] }),
      },
    ],
    invalid: [
      {
        name: 'a dataset that does not exist',
        stack: report({ dataset: 'exp_expense_metric', rows: ['status'], values: ['total_amount'] }),
        errors: [{ code: 'dangling_dataset', artifact: 'report/spend', path: '/dataset', patch: [{ op: 'replace', path: '/dataset', value: DS }] }],
      },
      {
        name: 'rows, columns and values the dataset does not declare',
        stack: report({ type: 'matrix', dataset: DS, rows: ['stauts'], columns: [{ field: 'amount' }], values: ['amount'] }),
        errors: [
          { code: 'unknown_dimension', artifact: 'report/spend', path: '/rows/0', suggestion: 'status' },
          { code: 'unknown_dimension', artifact: 'report/spend', path: '/columns/0/field' },
          { code: 'unknown_measure', artifact: 'report/spend', path: '/values/0' },
        ],
      },
      {
        name: 'a runtime filter on nothing the dataset or its object has, and a chart axis not selected',
        stack: report({
          dataset: DS,
          rows: ['status'],
          values: ['total_amount'],
          runtimeFilter: { state: 'open' },
          chart: { xAxis: 'month', yAxis: ['total_amount', 'expense_count'] },
        }),
        errors: [
          { code: 'unknown_field', artifact: 'report/spend', path: '/runtimeFilter/state' },
          { code: 'chart_field_unknown', artifact: 'report/spend', path: '/chart/xAxis' },
          { code: 'chart_field_unknown', artifact: 'report/spend', path: '/chart/yAxis/1' },
        ],
      },
      {
        name: 'a block of a joined report',
        stack: report({
          type: 'joined',
          blocks: [
            { name: 'ok', dataset: DS, values: ['total_amount'] },
            { name: 'bad', dataset: DS, rows: ['owner'], values: ['total'] },
          ],
        }),
        errors: [
          { code: 'unknown_dimension', artifact: 'report/spend', path: '/blocks/1/rows/0' },
          { code: 'unknown_measure', artifact: 'report/spend', path: '/blocks/1/values/0' },
        ],
      },
      {
        name: 'a report on an object that does not exist, and on fields an object lacks',
        stack: (s) => {
          report({ type: 'tabular', objectName: 'exp_expenses', columns: ['title'] })(s);
          s.reports!.push({ name: 'list', label: 'List', type: 'tabular', objectName: 'exp_expense', columns: [{ field: 'titel' }, 'category.nme'] });
        },
        errors: [
          { code: 'dangling_object', artifact: 'report/spend', path: '/objectName' },
          { code: 'unknown_field', artifact: 'report/list', path: '/columns/0/field' },
          { code: 'unknown_field', artifact: 'report/list', path: '/columns/1' },
        ],
      },
    ],
  }),
);
