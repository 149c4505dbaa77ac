import { describe, expect, it } from 'vitest';
import { collectFolder, collectStack, screenBody } from './collect-artifacts.ts';

const names = (doc: unknown) => collectStack(doc).artifacts.map((a) => `${a.type}/${a.name}`);

describe('collectStack', () => {
  it('expands a container: listViews first, then the default list as <object>.default, then forms', () => {
    const set = collectStack({
      views: [
        {
          list: { type: 'grid', data: { object: 'o' }, columns: [] },
          listViews: { board: { type: 'kanban', data: { object: 'o' } } },
          formViews: { edit: { type: 'simple' } },
          form: { type: 'simple' },
        },
      ],
    });
    expect(set.artifacts.map((a) => [a.name, a.viewKind, a.source.pointer])).toEqual([
      ['o.board', 'list', '/views/0/listViews/board'],
      ['o.default', 'list', '/views/0/list'],
      ['o.edit', 'form', '/views/0/formViews/edit'],
      ['o.form', 'form', '/views/0/form'],
    ]);
    expect(set.problems).toEqual([]);
  });

  it('renames a key colliding with the default list to <key>_2, as ObjectStack does', () => {
    expect(names({ views: [{ list: { data: { object: 'o' } }, formViews: { default: { type: 'simple' } } }] })).toEqual(['view/o.default', 'view/o.default_2']);
  });

  it('reads all four stored view shapes', () => {
    expect(
      names({
        views: [
          { list: { data: { object: 'a' } } },
          { name: 'b.mine', object: 'b', viewKind: 'list', config: { type: 'grid' } },
          { name: 'c.inline', object: 'c', viewKind: 'list', type: 'grid', columns: [] },
          { name: 'flat', object: 'd', viewKind: 'form', sections: [] },
        ],
      }),
    ).toEqual(['view/a.default', 'view/b.mine', 'view/c.inline', 'view/d.flat']);
  });

  it('refuses a flat list view written where a container goes (defect #20)', () => {
    const set = collectStack({ views: [{ type: 'grid', data: { object: 'o' }, columns: [] }] });
    expect(set.artifacts).toEqual([]);
    expect(set.problems.map((p) => [p.code, p.name])).toEqual([['invalid_artifact', 'o.default']]);
  });

  it('numbers a second seed of the same object and reports duplicate names', () => {
    const set = collectStack({
      data: [
        { object: 's', records: [] },
        { object: 's', records: [] },
      ],
      objects: [{ name: 'x' }, { name: 'x' }],
    });
    expect(set.artifacts.map((a) => `${a.type}/${a.name}`)).toEqual(['object/x', 'seed/s', 'seed/s#2']);
    expect(set.problems.map((p) => [p.code, p.type, p.name])).toEqual([['duplicate_artifact', 'object', 'x']]);
  });

  it('turns non-object bodies, non-array keys and hostile depth into problems, never throws', () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const set = collectStack({ objects: [42, null, 'x', { name: 'ok' }], views: 'nope', dashboards: [{ name: 'd', widgets: [deep] }] });
    // The too-deep dashboard is refused, but its name still resolves (no cascade of dangling references).
    expect(set.artifacts.map((a) => [a.name, a.refused ?? false])).toEqual([
      ['ok', false],
      ['d', true],
    ]);
    expect(set.problems.map((p) => p.code)).toEqual(['invalid_artifact', 'invalid_artifact', 'invalid_artifact', 'invalid_artifact', 'invalid_artifact']);
    expect(collectStack([1, 2]).problems[0]!.message).toContain('not a JSON object');
  });

  it("loads an object's own listViews as views of that object, rebased on the object document", () => {
    const set = collectStack({ objects: [{ name: 'o', fields: {}, listViews: { mine: { type: 'grid', columns: [] } } }] });
    expect(set.artifacts.map((a) => [a.type, a.name, a.docPrefix, a.container])).toEqual([
      ['object', 'o', undefined, undefined],
      ['view', 'o.mine', '/listViews/mine', 'object:o'],
    ]);
  });

  it('names an inline view that already has a dotted name once', () => {
    expect(collectStack({ views: [{ name: 'o.x', type: 'grid', data: { object: 'o' } }] }).problems[0]!.name).toBe('o.x');
  });

  it('refuses a body holding a NUL character (no Postgres text can store it), naming where', () => {
    const set = collectStack({ data: [{ object: 's', records: [{ name: 'a\u0000b' }] }], objects: [{ name: 'ok' }] });
    expect(set.problems.map((p) => [p.code, p.name, p.path])).toEqual([['invalid_artifact', 's', '/records/0/name']]);
    expect(set.artifacts.map((a) => [a.name, a.refused ?? false])).toEqual([
      ['ok', false],
      ['s', true],
    ]);
  });

  it('refuses a number JSON parses to infinity (it would silently become null)', () => {
    const set = collectStack(JSON.parse('{"data":[{"object":"s","records":[{"v":1e400}]}]}'));
    expect(set.problems.map((p) => [p.code, p.path, p.message.includes('infinity')])).toEqual([['invalid_artifact', '/records/0/v', true]]);
  });

  it('accepts the record form { name: body }', () => {
    expect(names({ objects: { a: { fields: {} } } })).toEqual(['object/a']);
  });
});

describe('collectFolder', () => {
  it('reads per-artifact files; a file that is not JSON is an invalid_artifact and the rest still loads', () => {
    const set = collectFolder(
      [
        { path: 'objects/a.json', text: '{"name":"a","fields":{}}' },
        { path: 'objects/b.json', text: '{"name": "b",' },
        { path: 'seeds/a.json', text: '[{"object":"a","records":[]},{"object":"a","records":[]}]' },
        { path: 'notes/readme.json', text: '{}' },
      ],
      { root: 'app' },
    );
    expect(set.artifacts.map((a) => [a.name, a.source.file, a.source.pointer])).toEqual([
      ['a', 'app/objects/a.json', ''],
      ['a', 'app/seeds/a.json', '/0'],
      ['a#2', 'app/seeds/a.json', '/1'],
    ]);
    expect(set.problems.map((p) => [p.code, p.type, p.name, p.source.file])).toEqual([['invalid_artifact', 'object', 'b', 'app/objects/b.json']]);
  });
});

describe('screenBody', () => {
  it('stops at MAX_DEPTH: a body nested 100,000 deep is too deep, without exhausting the stack', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(screenBody(v)).toBe(2);
    expect(screenBody({ a: [{ b: 1 }] })).toBe(0);
  });
});
