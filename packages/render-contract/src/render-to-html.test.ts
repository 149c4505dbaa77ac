import { buildGraph, collectStack, type Graph, type ViewNode } from '@bvl/metadata';
import { propertyRuns } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import fc from 'fast-check';
import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { corpusGraph, fixtureGraph } from '../test/corpora.ts';
import { sampleRows } from '../test/sample-rows.ts';
import { checkView } from './check-view.ts';
import { checkWidget } from './check-widget.ts';
import { TEMPLATES } from './component-registry.ts';
import type { ComponentSchema } from './component-schema.ts';
import { DEFAULT_REGISTRY, RENDERER_PROFILES } from './renderer-profiles.ts';

const FEB = RENDERER_PROFILES['objectui-2026-02']!;

import { renderErrorBox, renderToHtml } from './render-to-html.ts';
import { sweepDom } from './sweep-dom.ts';

const window = new Window();
const parse = (html: string) => {
  const root = window.document.createElement('div');
  root.innerHTML = html;
  return root;
};

/** Every view and widget schema of a graph. */
function schemasOf(graph: Graph): ComponentSchema[] {
  const views = [...graph.views.values()].map((v) => checkView(v, graph).schema);
  const widgets = [...graph.dashboards.values()].flatMap((d) => d.widgets.map((w) => checkWidget(w, graph.datasets.get(w.def.dataset ?? ''), d).schema));
  return [...views, ...widgets];
}

/** A schema renders exactly one accessible component, drawing rows when it has them and an empty state when not. */
function rendersAccessibly(schema: ComponentSchema): void {
  for (const rows of [undefined, sampleRows(schema, 3)]) {
    const html = renderToHtml(schema, rows ? { rows } : undefined);
    const sweep = sweepDom(html);
    expect(sweep).toMatchObject({ errorBoxes: 0, emptyWidgets: 0, components: 1, a11yViolations: 0 });
    const root = parse(html);
    const template = DEFAULT_REGISTRY.components[schema.type ?? '']?.template;
    if (rows && template !== 'form') expect(sweep.noData, 'rows are drawn').toBe(0);
    if (!rows && template !== 'form') expect(sweep.noData, 'an empty data state is drawn').toBeGreaterThan(0);
    for (const th of root.querySelectorAll('th')) expect(th.getAttribute('scope')).toMatch(/^(col|row)$/);
  }
}

describe('renderToHtml', () => {
  it('draws exactly the red box for a missing or unknown type, escaped', () => {
    expect(renderToHtml({ id: 'x', props: {} })).toBe('<div class="bvl-render-error" role="alert">Unknown component type: (none)</div>');
    expect(renderToHtml({ id: 'x', type: 'object-list', props: { label: 'ignored' } })).toBe(
      '<div class="bvl-render-error" role="alert">Unknown component type: object-list</div>',
    );
    expect(renderToHtml({ id: 'x', type: '<script>alert(1)</script>', props: {} })).toBe(
      '<div class="bvl-render-error" role="alert">Unknown component type: &lt;script&gt;alert(1)&lt;/script&gt;</div>',
    );
    expect(renderErrorBox('constructor')).toContain('constructor');
    expect(renderToHtml({ id: 'x', type: 'constructor', props: {} })).toBe(renderErrorBox('constructor'));
  });

  it("'list' is a registered objectui component (a plain list region), so a schema typed 'list' renders; only a typeless one red-boxes", () => {
    expect(sweepDom(renderToHtml({ id: 'x', type: 'list', props: {} }))).toMatchObject({ errorBoxes: 0, components: 1 });
  });

  // The field-service fixture's views and widgets between them use every template.
  const schemas = schemasOf(fixtureGraph('field-service'));

  it('field-service exercises every template', () => {
    const used = new Set(schemas.map((s) => DEFAULT_REGISTRY.components[s.type ?? '']?.template));
    expect([...TEMPLATES].filter((t) => !used.has(t))).toEqual([]);
  });

  it.each(schemas.map((s) => [s.id, s] as const))('%s renders accessibly, with and without rows', (_, schema) => rendersAccessibly(schema));

  it('forms label every control and mark required ones', () => {
    const graph = fixtureGraph('field-service');
    const html = renderToHtml(checkView(graph.views.get('fs_job.edit') as ViewNode, graph).schema);
    const root = parse(html);
    const title = root.querySelector('input[name="title"]');
    expect(title?.getAttribute('required')).not.toBeNull();
    expect(root.querySelector(`label[for="${title?.id}"]`)?.textContent).toBe('Title');
    expect(root.querySelectorAll('select[name="status"] option').length).toBeGreaterThan(1);
  });

  it('escapes hostile labels, names and values everywhere', () => {
    const hostile = `<img src=x onerror="alert(1)">'"&<script>`;
    fc.assert(
      fc.property(fc.constantFrom(...schemas), fc.string({ maxLength: 20 }), (schema, noise) => {
        const evil: ComponentSchema = JSON.parse(JSON.stringify(schema, (k, v) => (k === 'label' || k === 'title' ? `${hostile}${noise}` : v)));
        const plain = renderToHtml(schema, { rows: sampleRows(schema, 2) });
        const html = renderToHtml(evil, { rows: sampleRows(evil, 2, (n) => `${hostile}${n}${noise}`) });
        const root = parse(html);
        expect(root.querySelectorAll('script').length).toBe(0);
        expect([...root.querySelectorAll('img')].every((img) => img.getAttribute('onerror') === null)).toBe(true);
        // Same element structure as the harmless rendering: hostile text adds no element.
        expect(root.querySelectorAll('*').length).toBe(parse(plain).querySelectorAll('*').length);
      }),
      propertyRuns(150, 1_500),
    );
  });

  it('a component missing a required binding draws an empty widget, not a red box', () => {
    const feb = renderToHtml({ id: 'v', type: 'object-kanban', props: { label: 'Board', columns: [] } }, undefined, { registry: FEB });
    expect(sweepDom(feb)).toMatchObject({ errorBoxes: 0, emptyWidgets: 1 });
    expect(feb).toContain('no groupField is bound');
    // The newest profile names what its component does instead.
    const newest = renderToHtml({ id: 'v', type: 'object-map', props: { label: 'Sites', columns: [], latitudeField: { name: 'lat' } } });
    expect(sweepDom(newest)).toMatchObject({ errorBoxes: 0, emptyWidgets: 1 });
    expect(newest).toContain('Map configuration required');
  });

  it('a widget whose query shape its component refuses draws an empty widget', () => {
    const pie = { id: 'd.w', type: 'chart', props: { title: 'Split', chartType: 'pie', dimensions: [], measures: [{ name: 'n', label: 'n' }] } };
    expect(sweepDom(renderToHtml(pie, undefined, { registry: FEB }))).toMatchObject({ errorBoxes: 0, emptyWidgets: 1 });
    const measures = [
      { name: 'a', label: 'a' },
      { name: 'b', label: 'b' },
    ];
    const scatter = { id: 'd.s', type: 'chart', props: { title: 'Spread', chartType: 'scatter', dimensions: [{ name: 'x', label: 'x' }], measures } };
    expect(sweepDom(renderToHtml(scatter))).toMatchObject({ errorBoxes: 0, emptyWidgets: 1, degraded: 0 });
  });

  it('a widget drawn with less than was asked carries a visible note, and still renders', () => {
    const measures = [
      { name: 'a', label: 'a' },
      { name: 'b', label: 'b' },
    ];
    const pie = { id: 'd.p', type: 'chart', props: { title: 'Split', chartType: 'pie', dimensions: [{ name: 'x', label: 'x' }], measures } };
    const html = renderToHtml(pie, { rows: sampleRows(pie, 2) });
    expect(sweepDom(html)).toMatchObject({ errorBoxes: 0, emptyWidgets: 0, degraded: 1, components: 1, a11yViolations: 0 });
    expect(html).toContain('the chart draws one series');
  });

  it('a registry is data: another registry changes what renders', () => {
    const { graph } = buildGraph(
      collectStack({ objects: [{ name: 'o', fields: { t: { type: 'text' } } }], views: [{ list: { type: 'grid', data: { object: 'o' }, columns: ['t'] } }] }),
    );
    const schema = checkView(graph.views.get('o.default') as ViewNode, graph).schema;
    const registry = { ...DEFAULT_REGISTRY, components: { ...DEFAULT_REGISTRY.components } };
    delete (registry.components as Record<string, unknown>)['object-grid'];
    expect(sweepDom(renderToHtml(schema, undefined, { registry })).errorBoxes).toBe(1);
  });
});

describeCorpora('renderToHtml on the corpora', () => {
  const schemas = schemasOf(corpusGraph('app-showcase'));
  it.each(schemas.map((s) => [s.id, s] as const))('app-showcase %s renders accessibly, with and without rows', (_, schema) => rendersAccessibly(schema));
});
