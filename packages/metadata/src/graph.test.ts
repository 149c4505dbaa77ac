import { describe, expect, it } from 'vitest';
import { collectStack } from './collect-artifacts.ts';
import { allFieldNames, buildGraph, rebaseViewPaths, resolveField } from './graph.ts';
import { FieldName, validate } from './schemas.ts';

const base = {
  objects: [{ name: 'o', fields: { title: { type: 'text' }, status: { type: 'select', options: [{ label: 'A', value: 'a' }] } } }],
  views: [{ list: { type: 'grid', data: { object: 'o' }, columns: ['title'] } }],
  datasets: [{ name: 'd', object: 'o', dimensions: [], measures: [{ name: 'n', aggregate: 'count' }] }],
};

describe('buildGraph: the draft overlay', () => {
  it('replaces the published artifact of the same type+name and adds draft-only artifacts', () => {
    const drafts = collectStack(
      {
        datasets: [
          { name: 'd', object: 'o', dimensions: [], measures: [{ name: 'm', aggregate: 'count' }] },
          { name: 'e', object: 'o', dimensions: [], measures: [] },
        ],
      },
      { draft: true },
    );
    const { graph, issues } = buildGraph(collectStack(base), drafts);
    expect(issues).toEqual([]);
    expect([...graph.datasets.get('d')!.measures.keys()]).toEqual(['m']);
    expect(graph.datasets.get('d')!.draft).toBe(true);
    expect(graph.datasets.get('e')!.draft).toBe(true);
    expect(graph.objects.get('o')!.draft).toBe(false);
  });

  it('a draft view item replaces one view of a published container, leaving its siblings', () => {
    const drafts = collectStack({ views: [{ name: 'o.default', object: 'o', viewKind: 'list', config: { type: 'list', columns: [] } }] }, { draft: true });
    const { graph } = buildGraph(collectStack(base), drafts);
    expect(graph.views.get('o.default')!.list!.type).toBe('list');
    expect(graph.viewsByObject.get('o')!.get('default')!.draft).toBe(true);
  });

  it('a draft container replaces the whole published container: a view it drops is gone', () => {
    const published = collectStack({
      views: [{ list: { data: { object: 'o' }, columns: [] }, listViews: { board: { type: 'kanban', data: { object: 'o' } } } }],
    });
    const drafts = collectStack({ views: [{ list: { data: { object: 'o' }, columns: ['title'] } }] }, { draft: true });
    expect([...buildGraph(published, drafts).graph.views.keys()]).toEqual(['o.default']);
  });

  it('rebases view issue paths and patches onto the stored document', () => {
    const { graph } = buildGraph(
      collectStack({ views: [{ listViews: { board: { data: { object: 'o' } } } }, { name: 'o.item', object: 'o', viewKind: 'list', config: {} }] }),
    );
    const issue = (name: string) => ({
      layer: 'graph' as const,
      severity: 'error' as const,
      artifact: { type: 'view', name },
      code: 'unknown_field',
      message: 'm',
      path: '/columns/0',
      patch: [{ op: 'replace' as const, path: '/columns/0', value: 'x' }],
    });
    expect(rebaseViewPaths(graph, [issue('o.board'), issue('o.item')]).map((i) => [i.path, i.patch?.[0]?.path])).toEqual([
      ['/listViews/board/columns/0', '/listViews/board/columns/0'],
      ['/config/columns/0', '/config/columns/0'],
    ]);
  });

  it('does not report a published artifact problem once a draft replaces it', () => {
    const bad = collectStack({ objects: [{ name: 'o' }, { name: 'o' }] });
    expect(buildGraph(bad).issues.map((i) => i.code)).toEqual(['duplicate_artifact']);
    expect(buildGraph(bad, collectStack({ objects: [{ name: 'o' }] }, { draft: true })).issues).toEqual([]);
  });
});

describe('buildGraph: schemas', () => {
  it('one bad field spoils only itself; the object and its other fields stay usable', () => {
    const { graph, issues } = buildGraph(
      collectStack({ objects: [{ name: 'o', fields: { a: { type: 'string' }, b: { type: 'text' }, 'Bad Name': { type: 'text' } } }] }),
    );
    expect(issues.map((i) => [i.code, i.path, i.ref?.member])).toEqual([
      ['invalid_artifact', '/fields/a/type', 'a'],
      ['invalid_artifact', '/fields/Bad Name', 'Bad Name'],
    ]);
    const o = graph.objects.get('o')!;
    expect(o.invalid).toBe(false);
    expect(resolveField(o, 'a')!.invalid).toBe(true);
    expect(resolveField(o, 'b')!.def.type).toBe('text');
  });

  it('refuses a field named like the columns bvl adds for a type change, before any publish', () => {
    const taken = `bvl_sh_${'0a'.repeat(12)}`;
    const retired = `bvl_rt_${'f'.repeat(24)}`;
    const { graph, issues } = buildGraph(
      collectStack({ objects: [{ name: 'o', fields: { [taken]: { type: 'text' }, bvl_sh_note: { type: 'text' }, [retired]: { type: 'text' } } }] }),
    );
    expect(issues.map((i) => [i.code, i.path, i.ref?.member])).toEqual([
      ['invalid_artifact', `/fields/${taken}`, taken],
      ['invalid_artifact', `/fields/${retired}`, retired],
    ]);
    expect(issues[0]!.message).toBe(
      `Object "o" (${taken}) fails its schema at /fields/${taken}: is one bvl keeps for the columns it adds during a type change (bvl_sh_ or bvl_rt_ and 24 hex digits); rename the field.`,
    );
    expect(issues[0]!.fix).toBe(
      'Rename the field: a name of bvl_sh_ or bvl_rt_ and 24 hex digits is taken by the columns bvl adds while a type change is published.',
    );
    expect([...graph.objects.get('o')!.fields.keys()]).toEqual(['bvl_sh_note']);
    // The compiled fast path agrees with the schema on both sides of the rule.
    expect(validate(FieldName, 'bvl_sh_note')).toEqual({ success: true });
    expect(validate(FieldName, taken).success).toBe(false);
  });

  it('refuses option values that are not lowercase identifiers, on that field only', () => {
    const { issues } = buildGraph(
      collectStack({
        objects: [{ name: 'o', fields: { s: { type: 'select', options: [{ label: 'In Progress', value: 'In Progress' }] }, t: { type: 'text' } } }],
      }),
    );
    expect(issues.map((i) => [i.code, i.path, i.ref?.member])).toEqual([['invalid_artifact', '/fields/s/options', 's']]);
  });

  it('names every bad option value of a field in one issue, each with its stored spelling as a patch', () => {
    const { issues } = buildGraph(
      collectStack({
        objects: [
          {
            name: 'o',
            fields: { s: { type: 'select', options: [{ label: 'Open', value: 'Open' }, 'ok', 'Closed Won', { label: 'x', value: 'In-Review!' }] } },
          },
        ],
      }),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toContain(
      '3 option values that are not lowercase identifiers (a-z, 0-9, _ and .): "Open" → "open", "Closed Won" → "closed_won", "In-Review!" → "inreview"',
    );
    expect(issues[0]!.patch).toEqual([
      { op: 'replace', path: '/fields/s/options/0/value', value: 'open' },
      { op: 'replace', path: '/fields/s/options/2', value: 'closed_won' },
      { op: 'replace', path: '/fields/s/options/3/value', value: 'inreview' },
    ]);
  });

  it('refuses hostile object names before anything else sees them', () => {
    const { graph, issues } = buildGraph(collectStack({ objects: [{ name: 'x"; DROP TABLE t; --', fields: {} }, { name: 'a'.repeat(10_000) }] }));
    expect(issues.map((i) => i.code)).toEqual(['invalid_artifact', 'invalid_artifact']);
    expect(issues[0]!.message).toContain('snake_case');
    expect(issues[1]!.message).toContain('63');
    expect([...graph.objects.values()].filter((o) => !o.platform).every((o) => o.invalid)).toBe(true);
  });

  it('an invalid widget is reported as a member of its dashboard; the other widgets stay', () => {
    const { graph, issues } = buildGraph(
      collectStack({
        dashboards: [
          {
            name: 'd',
            widgets: [
              { id: 'ok', dataset: 'd', values: ['n'] },
              { id: 'bad', values: 'n' },
              { id: 'ok', values: [] },
            ],
          },
        ],
      }),
    );
    expect(issues.map((i) => [i.code, i.ref?.member, i.path])).toEqual([
      ['invalid_artifact', 'bad', '/widgets/1/values'],
      ['duplicate_artifact', 'ok', '/widgets/2/id'],
    ]);
    expect(graph.dashboards.get('d')!.widgets.map((w) => w.id)).toEqual(['ok']);
  });

  it('resolves system fields, honouring ownerless objects, and knows the platform objects', () => {
    const { graph } = buildGraph(
      collectStack({
        objects: [
          { name: 'a', fields: {} },
          { name: 'b', ownership: 'org', fields: {} },
        ],
      }),
    );
    expect(resolveField(graph.objects.get('a')!, 'owner_id')?.system).toBe(true);
    expect(resolveField(graph.objects.get('b')!, 'owner_id')).toBeUndefined();
    expect(resolveField(graph.objects.get('b')!, 'created_at')?.def.type).toBe('datetime');
    expect(graph.objects.get('sys_user')!.platform).toBe(true);
    expect(allFieldNames(graph.objects.get('sys_user')!)).toContain('email');
  });

  it('keeps fields named like Object.prototype members; refuses "__proto__", which no JavaScript record holds', () => {
    const kept = buildGraph(collectStack(JSON.parse('{"objects":[{"name":"o","fields":{"constructor":{"type":"text"}}}]}')));
    expect(kept.issues).toEqual([]);
    expect([...kept.graph.objects.get('o')!.fields.keys()]).toEqual(['constructor']);
    const proto = buildGraph(collectStack(JSON.parse('{"objects":[{"name":"o","fields":{"__proto__":{"type":"text"},"constructor":{"type":"text"}}}]}')));
    expect(proto.issues.map((i) => [i.code, i.artifact.name, i.path])).toEqual([['invalid_artifact', 'o', '/fields/__proto__']]);
  });

  it('reports a measure or dimension declared twice in a dataset', () => {
    const { issues } = buildGraph(
      collectStack({
        datasets: [
          {
            name: 'd',
            object: 'o',
            dimensions: [
              { name: 's', field: 'a' },
              { name: 's', field: 'b' },
            ],
            measures: [],
          },
        ],
      }),
    );
    expect(issues.map((i) => [i.code, i.ref?.member, i.path])).toEqual([['duplicate_artifact', 's', '/dimensions/1/name']]);
  });

  it('keeps the first of a repeated measure or dimension name, in short lists and long', () => {
    const long = Array.from({ length: 20 }, (_, i) => ({ name: `m${i % 15}`, aggregate: 'count', i }));
    const { graph, issues } = buildGraph(
      collectStack({
        datasets: [
          {
            name: 'd',
            object: 'o',
            dimensions: [
              { name: 's', field: 'a' },
              { name: 't', field: 'c' },
              { name: 's', field: 'b' },
            ],
            measures: long,
          },
        ],
      }),
    );
    const d = graph.datasets.get('d')!;
    expect([...d.dimensions].map(([k, v]) => [k, v.field])).toEqual([
      ['s', 'a'],
      ['t', 'c'],
    ]);
    expect(d.measures.size).toBe(15);
    expect((d.measures.get('m3') as { i?: number }).i).toBe(3);
    expect(d.measures.has('m15')).toBe(false);
    expect(issues.map((i) => i.path)).toEqual([
      '/measures/15/name',
      '/measures/16/name',
      '/measures/17/name',
      '/measures/18/name',
      '/measures/19/name',
      '/dimensions/2/name',
    ]);
  });

  it('normalizes seed aliases (rows → records, key → externalId)', () => {
    const { graph, issues } = buildGraph(collectStack({ data: [{ object: 's', key: ['a', 'b'], rows: [{ a: 1 }] }] }));
    expect(issues).toEqual([]);
    expect(graph.seeds.get('s')!.externalId).toEqual(['a', 'b']);
    expect(graph.seeds.get('s')!.def.records).toEqual([{ a: 1 }]);
  });
});
