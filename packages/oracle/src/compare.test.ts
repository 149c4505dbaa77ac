import { describe, expect, it } from 'vitest';
import { compare, type Expected, review } from './compare.ts';
import { docKey, docKeyOfLint, docKeyOfPointer, pathShape } from './doc-key.ts';
import { MUTATIONS, mutationSites } from './mutations.ts';
import { cleanStacks } from './stacks.ts';

const v = (key: string, signature: string) => ({ key, signature, message: `${signature} on ${key}` });
const listed = (signature: string, only: 'objectstack' | 'bvl' = 'objectstack'): Expected => ({
  oracle: 'lint',
  only,
  signature,
  reason: 'why',
  authority: 'lint',
});

describe('compare', () => {
  it('counts an entry both call an error, or neither, as agreement, whatever the reasons', () => {
    const r = compare('s', 'lint', [v('objects/a', 'lint x')], [v('objects/a', 'bvl y')], ['objects/a', 'views/a']);
    expect(r).toEqual({ agree: 2, disagreements: [] });
  });

  it('reports an entry only one side calls an error, with that side’s signatures', () => {
    const r = compare('s', 'lint', [v('objects/a', 'lint x'), v('objects/a', 'lint w')], [v('views/b', 'bvl y')], ['objects/a', 'views/b', 'apps/c']);
    expect(r.agree).toBe(1);
    expect(r.disagreements.map((d) => [d.key, d.only, d.signatures])).toEqual([
      ['objects/a', 'objectstack', ['lint w', 'lint x']],
      ['views/b', 'bvl', ['bvl y']],
    ]);
  });
});

describe('review', () => {
  const [d] = compare('s', 'lint', [v('objects/a', 'lint x'), v('objects/a', 'lint w')], [], []).disagreements;
  it('fails a disagreement unless every signature of it is listed', () => {
    expect(review([d!], [listed('lint x')]).unlisted).toEqual([d]);
    expect(review([d!], [listed('lint x'), listed('lint w')]).unlisted).toEqual([]);
  });
  it('matches on oracle and side too', () => {
    expect(review([d!], [listed('lint x', 'bvl'), listed('lint w', 'bvl')]).unlisted).toEqual([d]);
  });
  it('reports listed entries no disagreement uses (stale)', () => {
    expect(review([d!], [listed('lint x'), listed('lint w'), listed('lint gone')]).stale.map((e) => e.signature)).toEqual(['lint gone']);
  });
});

describe('doc keys', () => {
  const doc = {
    objects: [{ name: 'a_obj', listViews: { x: {} } }],
    views: [{ object: 'a_obj', list: {} }, { list: { data: { object: 'b_obj' } } }, 42],
    data: [{ object: 'a_obj', records: [] }],
  };
  it('names an entry by its name, a view container and a seed by their object', () => {
    expect([docKey(doc, 'objects', 0), docKey(doc, 'views', 0), docKey(doc, 'views', 1), docKey(doc, 'views', 2), docKey(doc, 'data', 0)]).toEqual([
      'objects/a_obj',
      'views/a_obj',
      'views/b_obj',
      'views/#2',
      'data/a_obj',
    ]);
    expect(docKey(doc, undefined, undefined)).toBe('stack');
  });
  it('reads pointers, lint paths and lint places', () => {
    expect(docKeyOfPointer(doc, '/objects/0/listViews/x')).toBe('objects/a_obj');
    expect(docKeyOfLint(doc, 'objects[0].sharingModel', '')).toBe('objects/a_obj');
    expect(docKeyOfLint(doc, '', "object 'a_obj' · field 'f'")).toBe('objects/a_obj');
  });
  it('shapes a path without the stack’s own names', () => {
    expect(pathShape(['objects', 3, 'fields', 'category', 'options', 0])).toBe('objects[].fields.*.options[]');
  });
});

describe('mutations', () => {
  it('each kind finds a site in some clean stack', () => {
    const clean = cleanStacks();
    for (const m of MUTATIONS)
      expect(
        clean.some((s) => mutationSites(s.doc, m).length > 0),
        m.name,
      ).toBe(true);
  });
});
