import { describe } from 'vitest';
import type { Stack } from '../rule-tester.ts';
import { ruleTester } from '../rule-tester.ts';
import rule from './rollup-summary-valid.ts';

/** Adds a summary field `total` to exp_report (exp_expense is its master_detail child). */
const rollup = (ops: Record<string, unknown>) => (s: Stack) => {
  s.objects[2].fields.total = { type: 'summary', summaryOperations: ops };
};
const P = '/fields/total/summaryOperations';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'sum of a currency field of the master_detail child', stack: rollup({ object: 'exp_expense', field: 'amount', function: 'sum' }) },
      { name: 'count needs no particular field type', stack: rollup({ object: 'exp_expense', field: 'title', function: 'count' }) },
      { name: 'count without a field', stack: rollup({ object: 'exp_expense', function: 'count' }) },
      { name: 'max of a date', stack: rollup({ object: 'exp_expense', field: 'spent_on', function: 'max' }) },
      {
        name: 'a filter on child fields',
        stack: rollup({ object: 'exp_expense', field: 'amount', function: 'avg', filter: { status: 'approved', amount: { $gte: 5 } } }),
      },
      {
        name: 'through a lookup (not only master_detail)',
        stack: (s) => {
          s.objects[0].fields.spend = { type: 'summary', summaryOperations: { object: 'exp_expense', field: 'amount', function: 'sum' } };
        },
      },
      { name: 'the named relationship field', stack: rollup({ object: 'exp_expense', field: 'amount', function: 'sum', relationshipField: 'report' }) },
      { name: 'summaryOperations missing is inert_field, not judged here', stack: (s) => (s.objects[2].fields.total = { type: 'summary' }) },
    ],
    invalid: [
      {
        name: 'a child object that does not exist',
        stack: rollup({ object: 'exp_expens', field: 'amount', function: 'sum' }),
        errors: [
          {
            code: 'dangling_object',
            artifact: 'object/exp_report',
            path: `${P}/object`,
            patch: [{ op: 'replace', path: `${P}/object`, value: 'exp_expense' }],
          },
        ],
      },
      {
        name: 'a child with no relation to the parent',
        stack: rollup({ object: 'exp_category', field: 'budget', function: 'sum' }),
        errors: [{ code: 'rollup_not_related', artifact: 'object/exp_report', path: `${P}/object` }],
      },
      {
        name: 'a named relationship field that does not point at the parent',
        stack: rollup({ object: 'exp_expense', field: 'amount', function: 'sum', relationshipField: 'category' }),
        errors: [{ code: 'rollup_not_related', artifact: 'object/exp_report', path: `${P}/relationshipField` }],
      },
      {
        name: 'a summarized field the child lacks, and a filter field it lacks',
        stack: rollup({ object: 'exp_expense', field: 'amont', function: 'sum', filter: { $or: [{ stauts: 'approved' }] } }),
        errors: [
          { code: 'unknown_field', artifact: 'object/exp_report', path: `${P}/field`, suggestion: 'amount' },
          { code: 'unknown_field', artifact: 'object/exp_report', path: `${P}/filter/$or/0/stauts` },
        ],
      },
      {
        name: 'sum of a text field, max of a select',
        stack: (s) => {
          rollup({ object: 'exp_expense', field: 'title', function: 'sum' })(s);
          s.objects[2].fields.top = { type: 'summary', summaryOperations: { object: 'exp_expense', field: 'status', function: 'max' } };
        },
        errors: [
          { code: 'field_type_mismatch', artifact: 'object/exp_report', path: `${P}/field` },
          { code: 'field_type_mismatch', artifact: 'object/exp_report', path: '/fields/top/summaryOperations/field' },
        ],
      },
      {
        name: 'sum of a formula field',
        stack: (s) => {
          s.objects[1].fields.doubled = { type: 'formula', expression: { dialect: 'cel', source: 'record.amount * 2' } };
          rollup({ object: 'exp_expense', field: 'doubled', function: 'sum' })(s);
        },
        errors: [{ code: 'field_type_mismatch', artifact: 'object/exp_report', path: `${P}/field` }],
      },
    ],
  }),
);
