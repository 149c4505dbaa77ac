// Test support (not exported from index.ts): a stack whose seeds carry every defect the L1 seed rules catch.
import type { Stack } from './rule-tester.ts';

/** The codes {@link seedDefects} makes the seed rules emit (each at least once). */
export const SEED_DEFECT_CODES = [
  'dangling_object',
  'seed_duplicate_key',
  'seed_insert_mode_replay',
  'seed_value_invalid',
  'seed_value_not_in_options',
  'unknown_field',
  'unresolved_seed_reference',
] as const;

/**
 * Adds to a stack (the expense-tracker example) seeds with every defect kind of the seed rules:
 * unknown keys and an unknown externalId, values of the wrong type, out of bounds, required unset or
 * empty, unique repeated, a CEL call ObjectStack lacks, select values not among the options (a label),
 * unresolved and wrapped lookups and a platform lookup no seed writes, single and composite natural
 * keys repeated, mode insert, a seed of no object; and `bulk` records with a wrong value each (past
 * the listed bound per artifact and code).
 */
export function seedDefects(s: Stack, bulk = 150): void {
  const expense = s.objects.find((o) => o.name === 'exp_expense');
  expense.fields.title.maxLength = 20;
  expense.fields.amount.min = 0;
  expense.fields.ref_no = { type: 'text', label: 'Ref', unique: true };
  const exp = s.data.find((d) => d.object === 'exp_expense');
  exp.records.push(
    { code: 'E-101', title: 'Comma', amount: '12,50', status: 'Approved', category: 'Travl', ref_no: 'A' },
    { code: 'E-102', title: 'A title far over twenty characters', amount: -5, status: 'paid', category: { externalId: 'Travel' }, ref_no: 'A' },
    { code: 'E-103', amount: 3, titel: 'typo', report: ['R-2026-01'], spent_on: { dialect: 'cel', source: 'hoursAgo(5)' } },
    { code: 'E-101', title: '', amount: 4, titel: 'again', colour: 'red', ref_no: 'B' },
    { code: 'E-104', title: 'Date', amount: 1, spent_on: 'yesterday', status: ['draft'], ref_no: 'B' },
  );
  for (let i = 0; i < bulk; i++) exp.records.push({ code: `B-${i}`, title: `Bulk ${i}`, amount: i % 2 ? 'x' : -1, status: i % 3 ? 'draft' : 'Draft' });
  const report = s.data.find((d) => d.object === 'exp_report');
  report.records.push({ code: 'R-2026-03', state: 'open', submitter: 'nobody' }, { code: 'R-2026-01', state: 'closed' }, { state: 'open' });
  s.data.push(
    {
      object: 'exp_category',
      externalId: ['name', 'budget'],
      mode: 'ignore',
      records: [{ name: 'Pair', budget: 1 }, { name: 'Pair', budget: 1 }, { name: 'Pair', budget: 2 }, { name: 'Keyless' }],
    },
    { object: 'exp_category', externalId: 'nmae', mode: 'upsert', records: [{ name: 'Books', budget: 5 }] },
    {
      object: 'exp_category',
      mode: 'insert',
      records: [
        { name: 'Insert', budget: 1 },
        { name: 'Insert', budget: 1 },
      ],
    },
    { object: 'exp_catgory', records: [{ name: 'Nowhere' }] },
  );
}
