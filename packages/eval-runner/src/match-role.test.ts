import { describe, expect, it } from 'vitest';
import { matchRole, words } from './match-role.ts';

describe('words', () => {
  it('splits names and labels into lowercase words', () => {
    expect(words('exp_expenseReport')).toEqual(['exp', 'expense', 'report']);
    expect(words('rec_application.pipeline')).toEqual(['rec', 'application', 'pipeline']);
    expect(words('Job openings (2026)')).toEqual(['job', 'openings', '2026']);
  });
});

describe('matchRole', () => {
  const cases: Array<[string, Array<string | undefined>, string[], string[] | undefined, boolean]> = [
    ['a prefixed name', ['rec_candidate'], ['candidate'], undefined, true],
    ['a plural label', [undefined, 'Candidates'], ['candidate'], undefined, true],
    ['a -ies plural', ['Categories'], ['category'], undefined, true],
    ['an -es plural', ['exp_boxes'], ['box'], undefined, true],
    ['a multi-word term', ['fs_work_order'], ['work order'], undefined, true],
    ['a multi-word term out of order', ['order_of_work'], ['work order'], undefined, false],
    ['whole words only', ['crm_leader'], ['lead'], undefined, false],
    ['any of several terms', ['Deal'], ['opportunity', 'deal'], undefined, true],
    ['an exclude term wins', ['exp_report', 'Expense report'], ['expense'], ['report'], false],
    ['an exclude term that is absent', ['exp_expense', 'Expense'], ['expense'], ['report'], true],
    ['case-insensitive terms', ['hd_ticket'], ['Ticket'], undefined, true],
    ['nothing to match', [undefined], ['ticket'], undefined, false],
  ];
  it.each(cases)('%s', (_name, texts, match, exclude, expected) => {
    expect(matchRole(texts, match, exclude)).toBe(expected);
  });
});
