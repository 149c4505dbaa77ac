import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './lookup-reference-exists.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'platform object sys_business_unit', stack: (s) => (s.objects[0].fields.unit = { type: 'lookup', reference: 'sys_business_unit' }) },
      { name: 'self reference', stack: (s) => (s.objects[0].fields.parent = { type: 'lookup', reference: 'exp_category' }) },
      {
        name: 'reference to an object staged as a draft',
        stack: (s) => (s.objects[0].fields.x = { type: 'lookup', reference: 'exp_vendor' }),
        drafts: () => ({ objects: [{ name: 'exp_vendor', fields: { name: { type: 'text' } } }] }),
      },
      { name: 'lookup without reference is L2 (inert_field)', stack: (s) => (s.objects[0].fields.x = { type: 'lookup' }) },
    ],
    invalid: [
      {
        name: 'user instead of sys_user (HotCRM)',
        stack: (s) => (s.objects[2].fields.submitter = { type: 'lookup', reference: 'user' }),
        errors: [{ code: 'dangling_reference', artifact: 'object/exp_report', path: '/fields/submitter/reference' }],
      },
      {
        name: 'master_detail typo with patch',
        stack: (s) => (s.objects[1].fields.report.reference = 'exp_reprot'),
        errors: [
          {
            code: 'dangling_reference',
            artifact: 'object/exp_expense',
            path: '/fields/report/reference',
            patch: [{ op: 'replace', path: '/fields/report/reference', value: 'exp_report' }],
          },
        ],
      },
    ],
  }),
);
