import { describe, expect, it } from 'vitest';
import { fieldReads, MAX_EXPRESSION_DEPTH, parseExpression } from './parse-expression.ts';

describe('parseExpression', () => {
  const parses: string[] = [
    "(record.first_name == null ? '' : record.first_name + ' ') + record.last_name",
    'record.status == "converted" || record.status == "disqualified"',
    'record.close_date == null ? 0 : daysBetween(today(), record.close_date)',
    "record.status in ['sent', 'paid'] && !has(record.paid_on)",
    "{'a': 1, 'b': [1, 2.5e3, 0x1F, 3u]}['a'] > -1",
    "r'raw\\d' + b'bytes' + '''multi\nline''' // a comment",
    'IF(AND(amount >= 10000, status <> "lost"), "Yes", NULL)',
    '.record.amount % 2 = 0',
  ];
  it.each(parses)('parses %s', (src) => expect(parseExpression(src)).toMatchObject({ ok: true }));

  const fails: Array<[string, string, number, number]> = [
    ['record.amount * (record.amount', 'expected ")", found the end of the expression', 1, 31],
    ["'open", 'unterminated string', 1, 1],
    ['record.a +\n  * 2', 'expected a value, a field or "(", found "*"', 2, 3],
    ['record. 1', 'expected a field or method name after "."', 1, 9],
    ['a b', 'expected an operator or the end of the expression, found "b"', 1, 3],
    ['a # b', 'unexpected character "#"', 1, 3],
    ['', 'the expression is empty', 1, 1],
  ];
  it.each(fails)('refuses %j: %s at %i:%i', (src, message, line, column) => {
    const r = parseExpression(src);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toContain(message);
      expect([r.line, r.column]).toEqual([line, column]);
    }
  });

  it('bounds nesting instead of overflowing the stack', () => {
    const deep = `${'('.repeat(5000)}1${')'.repeat(5000)}`;
    expect(parseExpression(deep)).toMatchObject({ ok: false, message: `nested more than ${MAX_EXPRESSION_DEPTH} levels deep` });
    expect(parseExpression(`${'-'.repeat(5000)}1`)).toMatchObject({ ok: false });
  });
});

describe('fieldReads', () => {
  const reads = (src: string, dialect: 'cel' | 'formula') => {
    const r = parseExpression(src);
    if (!r.ok) throw new Error(r.message);
    return fieldReads(r.expr, dialect).map((x) => [x.path, x.at]);
  };
  it('CEL: record paths, lookups followed, methods end a path, other roots skipped', () =>
    expect(reads('record.account.name.size() > 0 && parent.x == record.status && [record.a][0] == user.id', 'cel')).toEqual([
      ['account.name', 0],
      ['status', 46],
      ['a', 64],
    ]));
  it('formula language: bare names, not function names or literals', () =>
    expect(reads('IF(ISBLANK(owner.email), TRUE, amount > 0)', 'formula')).toEqual([
      ['owner.email', 11],
      ['amount', 31],
    ]));
});
