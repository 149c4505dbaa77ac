import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './seed-value-contract.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      {
        name: 'numeric text for a number, ISO text for a date, CEL for anything, update mode sets only what it names',
        stack: (s) => {
          s.data[0].records[0].budget = '2000.50';
          s.data[1].records[0].spent_on = '2026-01-15';
          s.data[1].records[1].amount = { dialect: 'cel', source: '1 + 2' };
          s.data[2].mode = 'update';
          s.data[2].records.push({ code: 'R-2026-03' });
        },
      },
      {
        name: 'a repeated externalId is one row (seed-duplicate-keys), not a unique violation',
        stack: (s) => s.data[1].records.push({ ...s.data[1].records[0], title: 'Taxi again' }),
      },
      {
        name: 'a required field with a default may be left out',
        stack: (s) => {
          s.objects[1].fields.title.defaultValue = 'Untitled';
          delete s.data[1].records[0].title;
        },
      },
    ],
    invalid: [
      {
        name: 'wrong types: text for a currency, a word for a date, a list for a text, a string for a boolean (the type is named)',
        stack: (s) => {
          s.objects[1].fields.billable = { type: 'boolean' };
          s.data[0].records[0].budget = 'lots';
          s.data[1].records[0].spent_on = 'yesterday';
          s.data[1].records[1].title = ['Flight'];
          s.data[1].records[2].billable = 'yes';
        },
        errors: [
          { code: 'seed_value_invalid', artifact: 'seed/exp_category', path: '/records/0/budget' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/0/spent_on' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/1/title' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/2/billable' },
        ],
      },
      {
        name: 'a required field unset or empty, a value over maxLength, a unique value repeated',
        stack: (s) => {
          delete s.data[1].records[0].title;
          s.data[1].records[1].title = '';
          s.objects[0].fields.name.maxLength = 5;
          s.objects[1].fields.title.unique = true;
          s.data[1].records[3].title = 'Team lunch';
        },
        errors: [
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/0' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/1' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_category', path: '/records/0/name' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_category', path: '/records/2/name' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/3/title' },
        ],
      },
    ],
  }),
);
