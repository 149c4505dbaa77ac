import { describe } from 'vitest';
import { ruleTester, type Stack } from '../rule-tester.ts';
import rule from './security-references-resolve.ts';

const grant = { allowRead: true, allowCreate: true };
const permissions =
  (...sets: Record<string, unknown>[]) =>
  (s: Stack) => {
    (s as Record<string, unknown>).permissions = sets;
  };
const sharing =
  (...rules: Record<string, unknown>[]) =>
  (s: Stack) => {
    (s as Record<string, unknown>).sharingRules = rules;
  };

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'object grants, field permissions through a lookup, and row-level security on existing objects',
        stack: permissions({
          name: 'exp_user',
          objects: { exp_expense: grant, exp_category: grant, sys_user: { allowRead: true } },
          fields: { 'exp_expense.amount': { readable: true, editable: false }, 'exp_expense.category.name': { readable: true } },
          rowLevelSecurity: [{ name: 'own', object: 'exp_expense', operation: 'select', using: 'owner == current_user.email' }],
        }),
      },
      {
        name: 'a platform object the stack does not otherwise mention',
        stack: permissions({ name: 'auditor', objects: { sys_audit_log: { allowRead: true } } }),
      },
      {
        name: 'a criteria sharing rule whose condition resolves',
        stack: sharing({
          name: 'approved',
          object: 'exp_expense',
          accessLevel: 'read',
          sharedWith: { type: 'position', value: 'manager' },
          condition: { dialect: 'cel', source: "record.status == 'approved' && record.category.name != ''" },
        }),
      },
      { name: 'an owner sharing rule without a condition', stack: sharing({ name: 'owners', object: 'exp_report', type: 'owner', accessLevel: 'edit' }) },
    ],
    invalid: [
      {
        name: 'grants on objects that do not exist',
        stack: permissions({ name: 'exp_user', objects: { exp_expenses: grant, approval_process: grant } }),
        errors: [
          { code: 'dangling_object', artifact: 'permission/exp_user', path: '/objects/exp_expenses', patch: null, suggestion: 'exp_expense' },
          { code: 'dangling_object', artifact: 'permission/exp_user', path: '/objects/approval_process', patch: null },
        ],
      },
      {
        name: 'field permissions on a missing object and a missing field',
        stack: permissions({ name: 'exp_user', fields: { 'exp_expence.amount': { readable: true }, 'exp_expense.amout': { readable: true } } }),
        errors: [
          { code: 'dangling_object', artifact: 'permission/exp_user', path: '/fields/exp_expence.amount' },
          { code: 'unknown_field', artifact: 'permission/exp_user', path: '/fields/exp_expense.amout', patch: null },
        ],
      },
      {
        name: 'a row-level security rule on a missing object',
        stack: permissions({ name: 'exp_user', rowLevelSecurity: [{ name: 'own', object: 'exp_reports', using: 'true' }] }),
        errors: [
          {
            code: 'dangling_object',
            artifact: 'permission/exp_user',
            path: '/rowLevelSecurity/0/object',
            patch: [{ op: 'replace', path: '/rowLevelSecurity/0/object', value: 'exp_report' }],
          },
        ],
      },
      {
        name: 'a profile (the profiles key) is a permission set',
        stack: (s) => {
          (s as Record<string, unknown>).profiles = [{ name: 'standard', isProfile: true, objects: { exp_cat: grant } }];
        },
        errors: [{ code: 'dangling_object', artifact: 'permission/standard', path: '/objects/exp_cat' }],
      },
      {
        name: 'sharing rules on a missing object, and with a condition that reads a missing field or does not parse',
        stack: sharing(
          { name: 'a', object: 'exp_expens', accessLevel: 'read' },
          { name: 'b', object: 'exp_expense', condition: { dialect: 'cel', source: "record.stage == 'new'" } },
          { name: 'c', object: 'exp_expense', condition: { dialect: 'cel', source: "record.status == 'new" } },
        ),
        errors: [
          { code: 'dangling_object', artifact: 'sharing_rule/a', path: '/object', patch: [{ op: 'replace', path: '/object', value: 'exp_expense' }] },
          { code: 'unknown_field', artifact: 'sharing_rule/b', path: '/condition/source' },
          { code: 'formula_parse_error', artifact: 'sharing_rule/c', path: '/condition/source' },
        ],
      },
    ],
  }),
);
