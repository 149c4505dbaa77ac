import type { BuildIssue } from '@bvl/build-issue';
import type { DashboardNode, DatasetNode, Graph, ViewNode, WidgetNode } from '@bvl/metadata';
import { CORPUS_NAMES, EXHAUSTIVE, FIXTURE_NAMES, propertyRuns, sampleEach } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusGraph, fixtureGraph } from '../test/corpora.ts';
import { exampleGraph } from '../test/example.ts';
import { sampleRows } from '../test/sample-rows.ts';
import { checkView } from './check-view.ts';
import { checkWidget } from './check-widget.ts';
import type { ComponentRegistry } from './component-registry.ts';
import type { ComponentSchema } from './component-schema.ts';
import { expectedOutcome } from './expected-outcome.ts';
import { parseRegistry } from './parse-registry.ts';
import { renderToHtml } from './render-to-html.ts';
import { RENDERER_PROFILES } from './renderer-profiles.ts';
import { sweepDom } from './sweep-dom.ts';

/*
 * The agreement rule between the two halves of L2, under every renderer profile:
 *   - L2 reports typeless_schema, unknown_component or unknown_widget_type for an artifact
 *     ⇔ the sweep finds a red "Unknown component type" box in the artifact's rendered HTML;
 *   - otherwise, L2 reports layout_without_binding or unsatisfiable_query_shape
 *     ⇔ the sweep finds an empty widget;
 *   - otherwise, L2 reports view_type_fallback, widget_type_fallback, query_shape_degraded or
 *     layout_binding_inferred ⇔ the component renders with a visible "drawn instead" note;
 *   - otherwise the component renders (exactly one, no accessibility slip).
 * It must hold with and without data rows. count_only_table (a warning: one row of totals),
 * dataset_compile_error (fails when the query runs) and inert_field (an object, not a view or
 * widget) do not change what the schema renders, so they are outside the rule.
 */

const seen = new Map<string, number>();

function agree(label: string, schema: ComponentSchema, issues: readonly BuildIssue[], registry: ComponentRegistry): void {
  const outcome = expectedOutcome(issues.map((i) => i.code));
  const count = (key: string) => seen.set(`${registry.name} ${key}`, (seen.get(`${registry.name} ${key}`) ?? 0) + 1);
  count(outcome);
  for (const i of issues) count(i.code);
  for (const rows of [undefined, sampleRows(schema, 2)]) {
    const sweep = sweepDom(renderToHtml(schema, rows ? { rows } : undefined, { registry }));
    const found = sweep.errorBoxes > 0 ? 'red-box' : sweep.emptyWidgets > 0 ? 'empty-widget' : sweep.degraded > 0 ? 'degraded' : 'rendered';
    expect(found, `${label} (${rows ? 'with' : 'without'} rows): L2 said ${issues.map((i) => i.code).join(', ') || 'nothing'}`).toBe(outcome);
    expect(sweep.errorBoxes + sweep.emptyWidgets, label).toBeLessThanOrEqual(1);
    if (outcome === 'rendered' || outcome === 'degraded') expect(sweep, label).toMatchObject({ components: 1, a11yViolations: 0 });
  }
}

const withList = (v: ViewNode, patch: Record<string, unknown>, drop: readonly string[] = []): ViewNode => {
  const body: Record<string, unknown> = { ...(v.kind === 'form' ? v.form : v.list), ...patch };
  for (const k of drop) delete body[k];
  return v.kind === 'form' ? { ...v, form: body } : { ...v, list: body };
};

/** Deterministic mutations of a view: every type (valid and not), each block removed, each block key removed. */
function viewMutations(v: ViewNode, registry: ComponentRegistry): Array<[string, ViewNode]> {
  const out: Array<[string, ViewNode]> = [['as is', v]];
  const body = (v.kind === 'form' ? v.form : v.list) as Record<string, unknown> | undefined;
  const types = Object.keys(registry.views[v.kind].types);
  for (const t of [...types, 'list', 'table', 'kanbn', 'board', 'page', 'object-grid', 'constructor', '']) out.push([`type=${t}`, withList(v, { type: t })]);
  out.push(['no type', withList(v, {}, ['type'])]);
  for (const [key, block] of Object.entries(body ?? {})) {
    if (
      typeof block !== 'object' ||
      block === null ||
      Array.isArray(block) ||
      !['kanban', 'calendar', 'timeline', 'gantt', 'gallery', 'map', 'tree', 'chart'].includes(key)
    )
      continue;
    out.push([`no ${key}`, withList(v, {}, [key])]);
    for (const k of Object.keys(block)) {
      const rest = { ...(block as Record<string, unknown>) };
      delete rest[k];
      out.push([`no ${key}.${k}`, withList(v, { [key]: rest })]);
    }
    for (const t of types) out.push([`type=${t}, no ${key}`, withList(v, { type: t }, [key])]);
  }
  return out;
}

const withDef = (w: WidgetNode, patch: Record<string, unknown>): WidgetNode => ({ ...w, def: { ...w.def, ...patch } as WidgetNode['def'] });

/** Deterministic mutations of a widget: every chart type (and unknown ones) × several query shapes, and a lost dataset. */
function widgetMutations(w: WidgetNode, dataset: DatasetNode | undefined, registry: ComponentRegistry): Array<[string, WidgetNode, DatasetNode | undefined]> {
  const dims = [...(dataset?.dimensions.keys() ?? [])];
  const measures = [...(dataset?.measures.keys() ?? [])];
  const shapes: Array<[string, Record<string, unknown>]> = [
    ['as is', {}],
    ['no dimension', { dimensions: [] }],
    ['no values', { values: [] }],
    ['all dimensions', { dimensions: dims }],
    ['all measures', { values: measures }],
    ['three dimensions, two measures', { dimensions: [...dims, 'x', 'y', 'z'].slice(0, 3), values: [...measures, 'm'].slice(0, 2) }],
    ['two dimensions, one measure', { dimensions: [...dims, 'x', 'y'].slice(0, 2), values: measures.slice(0, 1) }],
  ];
  const out: Array<[string, WidgetNode, DatasetNode | undefined]> = [];
  for (const t of [...Object.keys(registry.widgets.types), 'bars', 'heatmap', 'list', 'grid', 'chart', 'metric-card', 'constructor', undefined]) {
    for (const [name, patch] of shapes) out.push([`type=${t ?? '(none)'}, ${name}`, withDef(w, { type: t, ...patch }), dataset]);
  }
  out.push(['dataset lost', w, undefined]);
  return out;
}

/** One mutant of a view or widget: what kind of mutation it is (the sample's stratum) and what it checks. */
interface Mutant {
  readonly kind: string;
  check(): void;
}

/** Every mutant of every view and widget of a graph, under one registry. */
function* mutants(graph: Graph, registry: ComponentRegistry): Generator<Mutant> {
  for (const a of artifacts(graph)) {
    if (a[0] === 'view') {
      for (const [m, v] of viewMutations(a[1], registry))
        yield {
          kind: `view ${v.kind} ${m}`,
          check: () => {
            const { schema, issues } = checkView(v, graph, registry);
            agree(`${v.name} ${m}`, schema, issues, registry);
          },
        };
    } else {
      for (const [m, w, dataset] of widgetMutations(a[1], a[2], registry))
        yield {
          kind: `widget ${m}`,
          check: () => {
            const { schema, issues } = checkWidget(w, dataset, a[3], registry);
            agree(`${schema.id} ${m}`, schema, issues, registry);
          },
        };
    }
  }
}

/**
 * How many views or widgets each kind of mutation is tried on in `npm test` (a fixed-seed sample:
 * every kind, on artifacts picked from the seed); the exhaustive pass tries every kind on every one.
 */
const PER_KIND = 2;

function* artifacts(graph: Graph): Generator<['view', ViewNode] | ['widget', WidgetNode, DatasetNode | undefined, DashboardNode]> {
  for (const v of graph.views.values()) yield ['view', v];
  for (const d of graph.dashboards.values()) for (const w of d.widgets) yield ['widget', w, graph.datasets.get(w.def.dataset ?? ''), d];
}

// The repository's own apps (every clone has them); the shared ObjectStack corpora run too when present.
const EXAMPLE = await exampleGraph();
const SOURCES: ReadonlyArray<readonly [string, () => Graph]> = [
  ['expense-tracker', () => EXAMPLE],
  ...FIXTURE_NAMES.map((f) => [f, () => fixtureGraph(f)] as const),
];

/** The agreement on one stack under one profile: as published, under every mutation, with a trimmed registry. */
function agreesOn(corpus: string, load: () => Graph, registry: ComponentRegistry): void {
  const graph = load();

  it(`${corpus} as published: nothing red-boxes, renders empty or degrades`, () => {
    for (const a of artifacts(graph)) {
      const { schema, issues } = a[0] === 'view' ? checkView(a[1], graph, registry) : checkWidget(a[1], a[2], a[3], registry);
      expect(issues, schema.id).toEqual([]);
      agree(schema.id, schema, issues, registry);
    }
  });

  it(`${corpus} mutated: every kind of mutation, on ${EXHAUSTIVE ? 'every view and widget' : `${PER_KIND} views or widgets each (a fixed sample)`}`, () => {
    for (const m of sampleEach([...mutants(graph, registry)], (x) => x.kind, PER_KIND, `${registry.name} ${corpus}`)) m.check();
  });

  it(`${corpus} under a registry missing components: unknown_component red-boxes`, () => {
    const raw = structuredClone(registry) as unknown as { components: Record<string, unknown> };
    for (const c of ['object-kanban', 'object-form', 'chart', 'metric', 'dataset-kpi']) delete raw.components[c];
    const trimmed = parseRegistry(raw);
    for (const a of artifacts(graph)) {
      const { schema, issues } = a[0] === 'view' ? checkView(a[1], graph, trimmed) : checkWidget(a[1], a[2], a[3], trimmed);
      agree(`${schema.id} (trimmed registry)`, schema, issues, trimmed);
    }
  });
}

describe.each(Object.entries(RENDERER_PROFILES))('L2 and the rendered DOM agree (%s)', (profile, registry) => {
  for (const [corpus, load] of SOURCES) agreesOn(corpus, load, registry);

  it('random view types and widget shapes agree too', () => {
    const graph = fixtureGraph('field-service');
    const views = [...graph.views.values()];
    const widgets = [...artifacts(graph)].filter((a) => a[0] === 'widget');
    fc.assert(
      fc.property(
        fc.nat(),
        fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom('grid', 'kanban', 'calendar', 'gantt', 'timeline', 'map', 'pie', 'bar', 'metric', 'table', 'scatter'),
        ),
        fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }),
        fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }),
        (i, type, dims, values) => {
          const v = views[i % views.length] as ViewNode;
          const mutatedView = withList(v, { type });
          const cv = checkView(mutatedView, graph, registry);
          agree(`${v.name} type=${JSON.stringify(type)}`, cv.schema, cv.issues, registry);
          const [, w, dataset, dashboard] = widgets[i % widgets.length] as ['widget', WidgetNode, DatasetNode | undefined, DashboardNode];
          const cw = checkWidget(withDef(w, { type, dimensions: dims, values }), dataset, dashboard, registry);
          agree(`${w.id} type=${JSON.stringify(type)}`, cw.schema, cw.issues, registry);
        },
      ),
      propertyRuns(300, 3_000),
    );
  });

  it('the mutations exercised every outcome and every render code the profile can produce', () => {
    const degrades = registry.views.list.unknown?.outcome === 'degrades';
    const keys =
      profile === 'objectui-2026-02'
        ? [
            'red-box',
            'empty-widget',
            'rendered',
            'typeless_schema',
            'unknown_component',
            'unknown_widget_type',
            'layout_without_binding',
            'unsatisfiable_query_shape',
            'count_only_table',
          ]
        : [
            'red-box',
            'empty-widget',
            'degraded',
            'rendered',
            'unknown_component',
            'view_type_fallback',
            'widget_type_fallback',
            'layout_without_binding',
            'layout_binding_inferred',
            'unsatisfiable_query_shape',
            'query_shape_degraded',
          ];
    expect(degrades).toBe(profile !== 'objectui-2026-02');
    for (const key of keys) expect(seen.get(`${registry.name} ${key}`) ?? 0, key).toBeGreaterThan(0);
  });
});

describeCorpora('L2 and the rendered DOM agree on the corpora', () => {
  describe.each(Object.entries(RENDERER_PROFILES))('%s', (_profile, registry) => {
    for (const corpus of CORPUS_NAMES) agreesOn(corpus, () => corpusGraph(corpus), registry);
  });
});
