import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './field-default-contract.ts';

const spentOn = (s: { objects: any[] }) => s.objects[1].fields.spent_on;

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'a calendar day', stack: (s) => (spentOn(s).defaultValue = '2026-01-31') },
      { name: 'the NOW() token', stack: (s) => (spentOn(s).defaultValue = 'NOW()') },
      { name: 'a CEL expression', stack: (s) => (spentOn(s).defaultValue = { dialect: 'cel', source: 'today()' }) },
      { name: 'an instant with a zone on a datetime', stack: (s) => Object.assign(spentOn(s), { type: 'datetime', defaultValue: '2026-01-31T09:00:00Z' }) },
      { name: 'a text default is not judged here', stack: (s) => (s.objects[1].fields.title.defaultValue = '$today') },
    ],
    invalid: [
      {
        name: 'a date macro as a literal default',
        stack: (s) => (spentOn(s).defaultValue = '$today'),
        errors: [{ code: 'invalid_artifact', artifact: 'object/exp_expense', path: '/fields/spent_on/defaultValue' }],
      },
      {
        name: 'a day on a datetime (no time, no zone) and a 24:00 time',
        stack: (s) => {
          Object.assign(spentOn(s), { type: 'datetime', defaultValue: '2026-01-31' });
          s.objects[1].fields.at = { type: 'time', defaultValue: '24:00' };
        },
        errors: [
          { code: 'invalid_artifact', artifact: 'object/exp_expense', path: '/fields/spent_on/defaultValue' },
          { code: 'invalid_artifact', artifact: 'object/exp_expense', path: '/fields/at/defaultValue' },
        ],
      },
    ],
  }),
);
