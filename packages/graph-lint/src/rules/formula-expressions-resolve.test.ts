import { describe } from 'vitest';
import { ruleTester, type Stack } from '../rule-tester.ts';
import rule from './formula-expressions-resolve.ts';

const cel = (source: string) => ({ dialect: 'cel', source });
/** Adds a formula field to exp_expense. */
const formula =
  (expression: unknown, extra: Record<string, unknown> = {}) =>
  (s: Stack) => {
    s.objects[1].fields.calc = { type: 'formula', expression, ...extra };
  };
const F = '/fields/calc/expression/source';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'CEL arithmetic over number fields, with null guards', stack: formula(cel('(record.amount == null ? 0 : record.amount) * 2')) },
      { name: 'a lookup path and a system field', stack: formula(cel("record.category.name + ' / ' + record.created_by")) },
      { name: 'a two-hop lookup path into the master object', stack: formula(cel("record.report.submitter.email != ''")) },
      { name: 'method calls and macros end a path', stack: formula(cel("record.title.size() > 3 && record.status in ['draft', 'approved']")) },
      { name: 'context roots other than record are not judged', stack: formula(cel("parent.state == 'paid' || user.role == 'admin'")) },
      { name: 'date arithmetic', stack: formula(cel('daysBetween(today(), record.spent_on) > 0 && record.spent_on - record.created_at > duration("1h")')) },
      { name: 'the formula language: bareword fields, IF, = and <>', stack: formula('IF(amount <> 0, amount * 2, NULL)') },
      { name: 'a declared result type the expression yields', stack: formula(cel('record.amount * 2'), { returnType: 'currency' }) },
      { name: 'another dialect is not judged', stack: formula({ dialect: 'js', source: 'this is ( not CEL' }) },
      {
        name: 'field conditions and validation rules that resolve',
        stack: (s) => {
          s.objects[1].fields.amount.requiredWhen = cel("record.status == 'approved'");
          s.objects[1].validations = [
            { name: 'positive', type: 'script', condition: cel('record.amount < 0') },
            { name: 'flow', type: 'state_machine', field: 'status', transitions: {} },
          ];
        },
      },
      {
        name: 'a CEL default and a literal default',
        stack: (s) => {
          s.objects[1].fields.spent_on.defaultValue = { dialect: 'cel', source: 'today()' };
          s.objects[1].fields.title.defaultValue = 'record.(';
        },
      },
      {
        name: 'a formula reading a number formula',
        stack: (s) => {
          formula(cel('record.amount * 2'))(s);
          s.objects[1].fields.calc2 = { type: 'formula', expression: cel('record.calc / 4') };
        },
      },
      {
        name: 'a formula cycle is not a type error here',
        stack: (s) => {
          formula(cel('record.calc2 + 1'))(s);
          s.objects[1].fields.calc2 = { type: 'formula', expression: cel('record.calc - 1') };
        },
      },
    ],
    invalid: [
      {
        name: 'a parse error names the position',
        stack: formula(cel('record.amount * (record.amount')),
        errors: [{ code: 'formula_parse_error', artifact: 'object/exp_expense', path: F }],
      },
      {
        name: 'an unterminated string in the formula language',
        stack: formula("IF(amount > 0, 'yes, 'no')"),
        errors: [{ code: 'formula_parse_error', artifact: 'object/exp_expense', path: '/fields/calc/expression' }],
      },
      {
        name: 'an empty expression',
        stack: formula(cel('  ')),
        errors: [{ code: 'formula_parse_error', artifact: 'object/exp_expense', path: F }],
      },
      {
        name: 'a field the object lacks, and a lookup path through a missing field of the target',
        stack: formula(cel('record.ammount + record.category.budgt + record.ammount')),
        errors: [
          { code: 'unknown_field', artifact: 'object/exp_expense', path: F, patch: null, suggestion: 'amount' },
          { code: 'unknown_field', artifact: 'object/exp_expense', path: F, patch: null },
        ],
      },
      {
        name: 'a path through a field that is not a lookup',
        stack: formula(cel('record.title.name')),
        errors: [{ code: 'unknown_field', artifact: 'object/exp_expense', path: F }],
      },
      {
        name: 'the formula language: a bareword field the object lacks',
        stack: formula('amont * 2'),
        errors: [{ code: 'unknown_field', artifact: 'object/exp_expense', path: '/fields/calc/expression' }],
      },
      {
        name: 'arithmetic on a select and on a yes/no value',
        stack: (s) => {
          s.objects[1].fields.paid = { type: 'boolean' };
          formula(cel('record.status * 2 + record.amount / record.paid'))(s);
        },
        errors: [
          { code: 'field_type_mismatch', artifact: 'object/exp_expense', path: F },
          { code: 'field_type_mismatch', artifact: 'object/exp_expense', path: F },
        ],
      },
      {
        name: 'arithmetic on a text formula read by another formula',
        stack: (s) => {
          formula(cel("record.title + '!'"))(s);
          s.objects[1].fields.calc2 = { type: 'formula', expression: cel('record.calc * 2') };
        },
        errors: [{ code: 'field_type_mismatch', artifact: 'object/exp_expense', path: '/fields/calc2/expression/source' }],
      },
      {
        name: 'a CEL default that does not parse',
        stack: (s) => (s.objects[1].fields.spent_on.defaultValue = { dialect: 'cel', source: 'daysAgo(2' }),
        errors: [{ code: 'formula_parse_error', artifact: 'object/exp_expense', path: '/fields/spent_on/defaultValue/source' }],
      },
      {
        name: 'a declared number result from a comparison',
        stack: formula(cel('record.amount > 100'), { returnType: 'number' }),
        errors: [{ code: 'field_type_mismatch', artifact: 'object/exp_expense', path: F }],
      },
      {
        name: 'a field condition and validation rules reading missing fields',
        stack: (s) => {
          s.objects[1].fields.amount.visibleWhen = cel("record.stauts == 'approved'");
          s.objects[1].validations = [
            { name: 'positive', type: 'script', condition: cel('record.amount < 0 &&') },
            { name: 'flow', type: 'state_machine', field: 'stage', transitions: {} },
            { name: 'code', type: 'script', condition: 'len(cod) > 10' },
          ];
        },
        errors: [
          { code: 'unknown_field', artifact: 'object/exp_expense', path: '/fields/amount/visibleWhen/source' },
          { code: 'formula_parse_error', artifact: 'object/exp_expense', path: '/validations/0/condition/source' },
          { code: 'unknown_field', artifact: 'object/exp_expense', path: '/validations/1/field' },
          { code: 'unknown_field', artifact: 'object/exp_expense', path: '/validations/2/condition' },
        ],
      },
    ],
  }),
);
