import { describe, expect, it } from 'vitest';
import { identifierProblem, packageProblem, showName, tenantProblem, tenantSchema } from './identifier.ts';

describe('identifierProblem', () => {
  const valid = ['a', '_x', 'crm_account', 'f_2', 'x'.repeat(63)];
  const invalid: Array<[string, unknown, RegExp]> = [
    ['SQL in a name', 'account"; drop table x; --', /snake_case/],
    ['a quote', "o'brien", /snake_case/],
    ['upper case', 'Account', /snake_case/],
    ['a leading digit', '1st', /snake_case/],
    ['a dot (schema smuggling)', 'public.pg_user', /snake_case/],
    ['64 characters', 'x'.repeat(64), /at most 63/],
    ['10k characters', 'a'.repeat(10_000), /10000 characters long/],
    ['empty', '', /empty/],
    ['not a string', 42, /not a string/],
    ['unicode look-alike', 'аccount', /snake_case/],
  ];
  it.each(valid)('accepts %s', (name) => expect(identifierProblem(name)).toBeUndefined());
  it.each(invalid)('refuses %s', (_label, name, why) => expect(identifierProblem(name)).toMatch(why));
});

describe('tenant and package ids', () => {
  it('maps a tenant to its schema', () => expect(tenantSchema('acme')).toBe('t_acme'));
  it.each(['acme', 'a1_b'])('accepts tenant %s', (t) => expect(tenantProblem(t)).toBeUndefined());
  it.each(['', 'Acme', '1a', 'a-b', 'x'.repeat(41), 'a;b'])('refuses tenant %j', (t) => expect(tenantProblem(t)).toBeDefined());
  it.each(['default', 'app-crm', 'pkg.v2'])('accepts package %s', (p) => expect(packageProblem(p)).toBeUndefined());
  it.each(['', 'A', 'a b', "a'b", 'x'.repeat(129)])('refuses package %j', (p) => expect(packageProblem(p)).toBeDefined());
  it('shows a long name cut short', () => expect(showName('a'.repeat(10_000)).length).toBeLessThan(70));
});
