import { describe, expect, it } from 'vitest';
import { ruleTester, runCase } from '../rule-tester.ts';
import rule from './seed-value-contract.ts';

// What passes is what ObjectStack's write path takes (objectql src/validation/record-validator.ts).
describe(rule.meta.name, () => {
  it('names the field type and what the write path expects', () => {
    const [issue] = runCase(rule, { name: 'comma decimal', stack: (s) => (s.data[1].records[0].amount = '12,50') });
    expect(issue?.message).toBe(
      'Seed "exp_expense" record 0 sets currency field "amount" to string "12,50", not a number; ObjectStack rejects the record when it writes it, so its row never lands.',
    );
    expect(issue?.fix).toBe('Give "amount" a number.');
    const [list] = runCase(rule, { name: 'list for a lookup', stack: (s) => (s.data[1].records[0].category = ['Travel']) });
    expect([list?.message, list?.fix]).toEqual([
      'Seed "exp_expense" record 0 sets lookup field "category" to a list, not one lookup value; ObjectStack rejects the record when it writes it, so its row never lands.',
      'Give "category" one lookup value.',
    ]);
  });
  it('refuses a CEL call ObjectStack 17.4.0 lacks (hoursAgo, hoursFromNow), naming the seed, field and what to use', () => {
    const issues = runCase(rule, {
      name: 'hoursAgo',
      stack: (s) => {
        s.data[1].records[0].spent_on = { dialect: 'cel', source: 'hoursAgo(5)' };
        s.data[1].records[1].spent_on = { dialect: 'cel', source: 'daysAgo(1) + duration("2h")' };
        s.data[1].records[2].spent_on = { dialect: 'cel', source: 'now() + hoursFromNow (1)' };
      },
    });
    expect(issues.map((i) => [i.code, i.ref?.member, i.path, i.message, i.fix])).toEqual([
      [
        'seed_value_invalid',
        'spent_on',
        '/records/0/spent_on',
        'Seed "exp_expense" record 0 computes "spent_on" with CEL hoursAgo(), which ObjectStack 17.4.0\'s CEL does not have; ObjectStack rejects the record when it writes it, so its row never lands.',
        'Compute "spent_on" with daysAgo(n) (whole days before today, UTC midnight) or now() instead of hoursAgo() (in "hoursAgo(5)").',
      ],
      [
        'seed_value_invalid',
        'spent_on',
        '/records/2/spent_on',
        'Seed "exp_expense" record 2 computes "spent_on" with CEL hoursFromNow(), which ObjectStack 17.4.0\'s CEL does not have; ObjectStack rejects the record when it writes it, so its row never lands.',
        'Compute "spent_on" with daysFromNow(n) (whole days after today, UTC midnight) or now() instead of hoursFromNow() (in "now() + hoursFromNow (1)").',
      ],
    ]);
  });
  ruleTester(rule, {
    valid: [
      {
        name: 'what the write path coerces: numeric text for a number, "1" for a boolean, a list for a text, a scalar for a multiselect; CEL for anything; update mode sets only what it names',
        stack: (s) => {
          s.objects[1].fields.billable = { type: 'boolean' };
          s.objects[1].fields.tags = { type: 'multiselect', options: ['a'] };
          s.data[0].records[0].budget = '2000.50';
          s.data[1].records[0].spent_on = '2026-01-15';
          s.data[1].records[0].billable = '1';
          s.data[1].records[0].tags = 'a';
          s.data[1].records[2].title = ['Flight', 'Hotel'];
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
        name: 'wrong types (the type is named): a word for a currency and a date, an object for a text, "yes" for a boolean, a list for a date, a bad email and time, an object for a multiselect',
        stack: (s) => {
          s.objects[1].fields.billable = { type: 'boolean' };
          s.objects[1].fields.contact = { type: 'email' };
          s.objects[1].fields.at = { type: 'time' };
          s.objects[1].fields.tags = { type: 'multiselect', options: ['a'] };
          s.data[0].records[0].budget = 'lots';
          s.data[1].records[0].spent_on = 'yesterday';
          s.data[1].records[1].title = { en: 'Flight' };
          s.data[1].records[2].billable = 'yes';
          s.data[1].records[3].spent_on = ['2026-01-15'];
          s.data[1].records[3].contact = 'ann@';
          s.data[1].records[3].at = '25:00';
          s.data[1].records[3].tags = { a: true };
        },
        errors: [
          { code: 'seed_value_invalid', artifact: 'seed/exp_category', path: '/records/0/budget' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/0/spent_on' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/1/title' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/2/billable' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/3/at' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/3/contact' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/3/spent_on' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/3/tags' },
        ],
      },
      {
        name: 'a list for a single-value field: a lookup, a master_detail, a select (a multiple lookup takes one)',
        stack: (s) => {
          s.data[1].records[0].category = ['Travel'];
          s.data[1].records[1].report = ['R-2026-01'];
          s.data[1].records[2].status = ['approved'];
          s.objects[1].fields.watchers = { type: 'lookup', reference: 'exp_category', multiple: true };
          s.data[1].records[3].watchers = ['Travel'];
        },
        errors: [
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/0/category' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/1/report' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/2/status' },
        ],
      },
      {
        name: 'a required field unset or empty, a value over maxLength, a number under min, a unique value repeated',
        stack: (s) => {
          s.objects[1].fields.amount.min = 0;
          s.data[1].records[2].amount = -5;
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
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/2/amount' },
          { code: 'seed_value_invalid', artifact: 'seed/exp_expense', path: '/records/3/title' },
        ],
      },
    ],
  });
});
