import { BuildIssueSchema, isCatalogueCode } from '@bvl/build-issue';
import { buildGraph, collectStack } from '@bvl/metadata';
import { CORPUS_NAMES, type CorpusName, corpusDoc, exampleDoc, FIXTURE_NAMES, fixtureDoc, propertyRuns, scaleStack } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusGraph, fixtureGraph, graphOf } from '../test/corpora.ts';
import { checkRender } from './check-render.ts';
import { checkView } from './check-view.ts';
import { checkWidget } from './check-widget.ts';
import { compileDataset } from './compile-dataset.ts';
import { renderToHtml } from './render-to-html.ts';
import { RENDERER_PROFILES } from './renderer-profiles.ts';
import { sweepDom } from './sweep-dom.ts';

describe('checkRender on the fixtures', () => {
  // field-service uses every view type, form type and widget type correctly: any issue is a false one.
  it.each(FIXTURE_NAMES)('%s: no L2 issue', (name) => {
    const result = checkRender(fixtureGraph(name));
    expect(result.issues).toEqual([]);
    // compiledDatasets: every dataset, plus every widget selection with a filter or query options.
    expect(result.checked).toEqual({ schemas: 27 + 26, compiledDatasets: 3 + 3 });
  });
});

describeCorpora('checkRender on the corpora', () => {
  // All three stacks are what ObjectStack itself ships as valid examples; L2 finds no defect in
  // them (every view type is translatable and bound, every widget's shape fits its chart, every
  // dataset and widget filter compiles, no field is inert). Any issue here would be a false one.
  const expected: Record<CorpusName, { schemas: number; compiledDatasets: number }> = {
    // compiledDatasets: every dataset, plus every widget selection with a filter.
    'app-todo': { schemas: 3 + 8, compiledDatasets: 1 + 7 },
    'app-crm': { schemas: 13 + 6, compiledDatasets: 1 + 6 },
    'app-showcase': { schemas: 36 + 37, compiledDatasets: 4 + 3 },
  };
  it.each(CORPUS_NAMES)('%s: no L2 issue', (corpus) => {
    const result = checkRender(corpusGraph(corpus));
    expect(result.issues).toEqual([]);
    expect(result.checked).toEqual(expected[corpus]);
  });
});

describe('checkRender', () => {
  const stack = () => ({
    objects: [{ name: 'exp_expense', fields: { title: { type: 'text' }, amount: { type: 'currency' }, status: { type: 'select' } } }],
    views: [{ list: { type: 'page', data: { object: 'exp_expense' }, columns: ['title'] } }],
    datasets: [
      {
        name: 'exp_metrics',
        object: 'exp_expense',
        dimensions: [{ name: 'status', field: 'status' }],
        measures: [
          { name: 'n', aggregate: 'count' },
          { name: 'bad', aggregate: 'sum', field: 'title' },
        ],
      },
    ],
    dashboards: [
      {
        name: 'exp_board',
        label: 'Board',
        widgets: [
          { id: 'pie', type: 'pie', dataset: 'exp_metrics', values: ['n'] },
          {
            id: 'filtered',
            type: 'metric',
            dataset: 'exp_metrics',
            values: ['n', 'unknown_measure'],
            filter: { stauts: 'x', amount: { $gt: '{last_tuesday}' } },
          },
          { id: 'orphan', type: 'bar', dataset: 'missing', dimensions: ['d'], values: ['n'] },
        ],
      },
    ],
  });

  it('reports every L2 finding once, sorted, with the owning artifact', () => {
    const { issues, checked } = checkRender(graphOf(stack()), { registry: RENDERER_PROFILES['objectui-2026-02'] });
    expect(issues.map((i) => [i.code, i.artifact.name, i.ref?.member ?? '', i.path])).toEqual([
      ['unsatisfiable_query_shape', 'exp_board', 'pie', '/widgets/0/dimensions'],
      ['dataset_compile_error', 'exp_board', 'filtered', '/widgets/1/filter/amount/$gt'],
      ['dataset_compile_error', 'exp_board', 'filtered', '/widgets/1/filter/stauts'],
      ['dataset_compile_error', 'exp_metrics', 'title', '/measures/1/field'],
      ['inert_field', 'exp_expense', 'status', '/fields/status'],
      ['typeless_schema', 'exp_expense.default', '', '/type'],
    ]);
    // The newest objectui draws the dimensionless pie as a KPI tile and the page view (a type the spec accepts) as a grid: warnings, not errors.
    expect(checkRender(graphOf(stack())).issues.map((i) => [i.code, i.severity, i.ref?.member ?? i.artifact.name, i.path])).toEqual([
      ['dataset_compile_error', 'error', 'filtered', '/widgets/1/filter/amount/$gt'],
      ['dataset_compile_error', 'error', 'filtered', '/widgets/1/filter/stauts'],
      ['dataset_compile_error', 'error', 'title', '/measures/1/field'],
      ['inert_field', 'error', 'status', '/fields/status'],
      ['query_shape_degraded', 'warning', 'pie', '/widgets/0/dimensions'],
      ['query_shape_degraded', 'warning', 'filtered', '/widgets/1/values'],
      ['view_type_fallback', 'warning', 'exp_expense.default', '/type'],
    ]);
    expect(checked).toEqual({ schemas: 4, compiledDatasets: 2 });
    const widgetFilter = issues.find((i) => i.path === '/widgets/1/filter/stauts');
    expect(widgetFilter?.message).toMatch(
      /^The filter of widget "filtered" of dashboard "exp_board" \(on dataset "exp_metrics"\) at "stauts" reads field "stauts", which object "exp_expense" does not have\./,
    );
    expect(widgetFilter?.suggestions).toEqual(['status']);
  });

  it('judges only what the target spec accepts: a type it refuses is left to L1 on every renderer profile', () => {
    const doc = stack();
    doc.views[0]!.list.type = 'list';
    (doc.dashboards[0]!.widgets as Array<Record<string, unknown>>).push({ id: 'stacked', type: 'stacked-bar', dataset: 'exp_metrics', values: ['n'] });
    for (const registry of Object.values(RENDERER_PROFILES)) {
      const { issues, checked } = checkRender(graphOf(doc), { registry });
      expect(issues.filter((i) => i.path === '/type' || i.ref?.member === 'stacked')).toEqual([]);
      expect(checked.schemas).toBe(3);
    }
  });

  it('does not repeat what L1 owns: a missing dataset, an unknown widget measure, a dataset on a missing object', () => {
    const doc = stack();
    doc.datasets.push({ name: 'exp_ghost', object: 'exp_nothing', dimensions: [], measures: [{ name: 'n', aggregate: 'count' }] });
    const messages = checkRender(graphOf(doc))
      .issues.map((i) => i.message)
      .join('\n');
    expect(messages).not.toMatch(/missing|unknown_measure|exp_nothing/);
  });

  it("leaves a dataset's unknown base field to L1 (unknown_field, same path), while a standalone compile still fails on it", () => {
    const doc = stack();
    doc.datasets.push({ name: 'exp_typo', object: 'exp_expense', dimensions: [{ name: 's', field: 'stauts' }], measures: [{ name: 'n', aggregate: 'count' }] });
    const graph = graphOf(doc);
    expect(checkRender(graph).issues.filter((i) => i.artifact.name === 'exp_typo')).toEqual([]);
    const alone = compileDataset(graph.datasets.get('exp_typo')!, graph);
    expect(alone.ok ? [] : alone.issues.map((i) => [i.code, i.path])).toEqual([['dataset_compile_error', '/dimensions/0/field']]);
  });

  it('skips artifacts that failed their schema', () => {
    const doc = stack() as Record<string, unknown[]>;
    doc.views = [{ list: { type: 'list', data: { object: 'exp_expense' }, columns: 'not-an-array' } }];
    doc.datasets = [{ name: 'exp_metrics', object: 'exp_expense', dimensions: 'nope', measures: [] }];
    const { issues } = checkRender(graphOf(doc));
    expect(issues.filter((i) => i.artifact.type === 'view' || i.artifact.type === 'dataset')).toEqual([]);
  });

  it('issues on draft artifacts carry draft: true', () => {
    const { graph } = buildGraph(
      collectStack({ objects: stack().objects }),
      collectStack({ views: stack().views, dashboards: stack().dashboards, datasets: stack().datasets }, { draft: true }),
    );
    const { issues } = checkRender(graph);
    expect(issues.filter((i) => i.artifact.type !== 'object').every((i) => i.draft === true)).toBe(true);
    expect(issues.find((i) => i.code === 'inert_field')?.draft).toBeUndefined();
  });

  it('uses only catalogue codes of the render layer, and every message names its artifact and says what to do', () => {
    for (const issue of checkRender(graphOf(stack())).issues) {
      expect(isCatalogueCode(issue.code)).toBe(true);
      expect(issue.layer).toBe('render');
      expect(issue.message).toContain(`"${issue.ref?.member ?? issue.artifact.name}"`);
      expect(issue.fix?.length).toBeGreaterThan(10);
    }
  });
});

/** Every path to a value under the artifact sections of a stack document. */
function pathsOf(doc: Record<string, unknown>): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  const walk = (v: unknown, path: Array<string | number>): void => {
    out.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  for (const key of ['objects', 'views', 'dashboards', 'datasets']) if (doc[key] !== undefined) walk(doc[key], [key]);
  return out;
}

type Mutation = { at: number; op: 'delete' | 'replace' | 'rename' | 'huge' | 'retype' | 'swap'; value: unknown; pick: number };

/** Applies a mutation at the `at`-th path (modulo): deleted keys, renamed references, wrong types, huge strings. */
function mutate(doc: Record<string, unknown>, paths: Array<Array<string | number>>, strings: string[], m: Mutation): void {
  const path = paths[m.at % paths.length] ?? [];
  if (path.length === 0) return;
  let parent: unknown = doc;
  for (const seg of path.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null) return;
    parent = (parent as Record<string | number, unknown>)[seg];
  }
  if (typeof parent !== 'object' || parent === null) return;
  const container = parent as Record<string | number, unknown>;
  const key = path[path.length - 1] as string | number;
  const old = container[key];
  const set = (v: unknown) => {
    container[key] = v;
  };
  switch (m.op) {
    case 'delete':
      if (Array.isArray(container) && typeof key === 'number') container.splice(key, 1);
      else delete container[key];
      return;
    case 'replace':
      return set(m.value);
    case 'rename':
      return set(typeof old === 'string' ? `${old.slice(0, -1)}x` : old);
    case 'huge':
      return set('x'.repeat(100_000));
    case 'retype':
      return set(
        typeof old === 'string'
          ? 42
          : typeof old === 'number'
            ? String(old)
            : Array.isArray(old)
              ? { ...old }
              : typeof old === 'object' && old !== null
                ? Object.values(old)
                : [old],
      );
    case 'swap':
      return set(strings[m.pick % strings.length]);
  }
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('delete', 'replace', 'rename', 'huge', 'retype', 'swap'),
  value: fc.jsonValue({ maxDepth: 3 }),
  pick: fc.nat(),
});

/** Random mutations of a stack document never make L2 throw; every issue is a valid render BuildIssue. */
function totalUnderMutation(label: string, pristineDoc: () => Record<string, unknown>, runs: { numRuns: number; seed: number }): void {
  const pristine = pristineDoc();
  const paths = pathsOf(pristine);
  const strings = [...new Set(paths.map((p) => p[p.length - 1]).filter((s): s is string => typeof s === 'string'))];
  it(`${label}: random mutations never throw, and every issue is a valid render BuildIssue`, () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 8 }), (mutations) => {
        const doc = pristineDoc();
        for (const m of mutations) mutate(doc, paths, strings, m);
        const graph = graphOf(doc);
        const { issues } = checkRender(graph, { schema: 'tenant_1' });
        for (const issue of issues) {
          expect(BuildIssueSchema.safeParse(issue).success).toBe(true);
          expect(isCatalogueCode(issue.code) && issue.layer === 'render').toBe(true);
        }
        for (const view of graph.views.values()) sweepDom(renderToHtml(checkView(view, graph).schema));
        for (const d of graph.dashboards.values())
          for (const w of d.widgets) sweepDom(renderToHtml(checkWidget(w, graph.datasets.get(w.def.dataset ?? ''), d).schema));
        for (const d of graph.datasets.values()) {
          const r = compileDataset(d, graph, {
            measures: [...d.measures.keys()].slice(0, 1),
            dimensions: [],
            filter: { [strings[mutations[0]!.pick % strings.length] ?? 'x']: mutations[0]!.value },
          });
          if (!r.ok) for (const issue of r.issues) expect(BuildIssueSchema.safeParse(issue).success).toBe(true);
        }
      }),
      runs,
    );
  });
}

describe('L2 is total on bad metadata', () => {
  totalUnderMutation('example app', () => exampleDoc('app'), propertyRuns(40, 500));
  totalUnderMutation('field-service', () => fixtureDoc('field-service'), propertyRuns(10, 120));
});

describeCorpora('L2 is total on bad metadata: the corpora', () => {
  const runs: Record<CorpusName, ReturnType<typeof propertyRuns>> = {
    'app-todo': propertyRuns(40, 500),
    'app-crm': propertyRuns(25, 300),
    'app-showcase': propertyRuns(10, 100),
  };
  for (const corpus of CORPUS_NAMES) totalUnderMutation(corpus, () => corpusDoc(corpus), runs[corpus]);
});

// Speed is measured by `npm run bench`, not asserted here: this checks that scale changes nothing.
describe('checkRender at scale', () => {
  it('checks every view and widget of a 10k-artifact graph and finds nothing new', () => {
    const doc = scaleStack(fixtureDoc('field-service'), 'fs_', 10_000, (d) => collectStack(d).artifacts.length);
    const set = collectStack(doc);
    expect(set.artifacts.length).toBeGreaterThanOrEqual(10_000);
    const { graph } = buildGraph(set);
    const { checked, issues } = checkRender(graph);
    let widgets = 0;
    for (const d of graph.dashboards.values()) widgets += d.widgets.length;
    expect(checked.schemas).toBe(graph.views.size + widgets);
    expect(issues).toEqual([]);
  });
});
