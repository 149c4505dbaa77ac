import { describe, expect, it } from 'vitest';
import { patchJsonText } from './patch-json-text.ts';

const TEXT = `{
    "name": "d",   "widgets": [
        { "id": "a", "values": [ "amount" ] },
        { "id": "b", "values": [] }
    ]
}
`;

describe('patchJsonText', () => {
  it('replaces a value in place, keeping every other byte of the file', () => {
    const r = patchJsonText(TEXT, [{ op: 'replace', path: '/widgets/0/values/0', value: 'total_amount' }]);
    expect(r).toMatchObject({ ok: true, changes: [{ path: '/widgets/0/values/0', old: 'amount', new: 'total_amount' }] });
    expect(r.ok && r.text).toBe(TEXT.replace('"amount"', '"total_amount"'));
  });

  it('adds, removes, moves and copies in the file’s own indentation', () => {
    const r = patchJsonText(TEXT, [
      { op: 'add', path: '/label', value: 'Spending' },
      { op: 'add', path: '/widgets/1/values/-', value: 'n' },
      { op: 'remove', path: '/widgets/0/values/0' },
      { op: 'copy', from: '/name', path: '/title' },
      { op: 'move', from: '/widgets/1', path: '/widgets/0' },
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(JSON.parse(r.text)).toEqual({
      name: 'd',
      widgets: [
        { id: 'b', values: ['n'] },
        { id: 'a', values: [] },
      ],
      label: 'Spending',
      title: 'd',
    });
    expect(r.text).toContain('\n    "label": "Spending"');
  });

  it('changes nothing when an op cannot apply, and says why', () => {
    expect(patchJsonText(TEXT, [{ op: 'replace', path: '/widgets/5/values/0', value: 'x' }])).toEqual({
      ok: false,
      error: expect.stringMatching(/out of range/),
    });
    expect(patchJsonText('{"a": ', [{ op: 'add', path: '/b', value: 1 }])).toMatchObject({ ok: false, error: expect.stringMatching(/not valid JSON/) });
  });
});
