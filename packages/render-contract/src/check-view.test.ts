import { BuildIssueSchema } from '@bvl/build-issue';
import { buildGraph, collectStack, type Graph, type ViewNode } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { checkView } from './check-view.ts';
import type { ComponentRegistry } from './component-registry.ts';
import { parseRegistry } from './parse-registry.ts';
import { RENDERER_PROFILES } from './renderer-profiles.ts';

// The mechanics of checkView, on the 2026-02 profile (renderer-profiles.test.ts holds every profile's outcome table).
const FEB = RENDERER_PROFILES['objectui-2026-02']!;

import { translateView } from './translate-view.ts';

const task = {
  name: 'exp_task',
  fields: {
    title: { type: 'text', label: 'Title' },
    status: {
      type: 'select',
      options: [
        { label: 'Open', value: 'open' },
        { label: 'Done', value: 'done' },
      ],
    },
    due: { type: 'date' },
    starts: { type: 'datetime' },
    owner: { type: 'user' },
    parent: { type: 'lookup', reference: 'exp_task' },
  },
};

/** An object with a single date field, so a missing date binding has exactly one candidate. */
const note = { name: 'exp_note', fields: { title: { type: 'text' }, on: { type: 'date' } } };

/** A graph holding the objects and one list view `<object>.v` (or form view when `kind` is form) with `body`. */
function viewGraph(body: Record<string, unknown>, kind: 'list' | 'form' = 'list', object = 'exp_task'): { graph: Graph; view: ViewNode } {
  const container =
    kind === 'list' ? { listViews: { v: { data: { provider: 'object', object }, columns: ['title'], ...body } } } : { object, formViews: { v: body } };
  const { graph } = buildGraph(collectStack({ objects: [task, note], views: [container] }));
  const view = graph.views.get(`${object}.v`);
  if (!view) throw new Error('view not built');
  return { graph, view };
}

interface Case {
  readonly name: string;
  readonly body: Record<string, unknown>;
  readonly kind?: 'list' | 'form';
  readonly object?: string;
}

const valid: ReadonlyArray<Case & { component: string }> = [
  { name: 'grid', body: { type: 'grid' }, component: 'object-grid' },
  { name: 'no type defaults to grid', body: {}, component: 'object-grid' },
  { name: 'kanban with its block', body: { type: 'kanban', kanban: { groupByField: 'status', columns: ['title'] } }, component: 'object-kanban' },
  { name: 'gallery without a block (not a binding type)', body: { type: 'gallery' }, component: 'object-gallery' },
  { name: 'calendar with startDateField', body: { type: 'calendar', calendar: { startDateField: 'due', titleField: 'title' } }, component: 'object-calendar' },
  {
    name: 'timeline with startDateField',
    body: { type: 'timeline', timeline: { startDateField: 'starts', titleField: 'title' } },
    component: 'object-timeline',
  },
  {
    name: 'gantt with both dates',
    body: { type: 'gantt', gantt: { startDateField: 'starts', endDateField: 'due', titleField: 'title' } },
    component: 'object-gantt',
  },
  { name: 'map', body: { type: 'map', map: { locationField: 'title' } }, component: 'object-map' },
  { name: 'chart', body: { type: 'chart', chart: { chartType: 'bar', dataset: 'd', values: ['n'] } }, component: 'object-chart' },
  { name: 'tree renders as a grid', body: { type: 'tree', tree: { parentField: 'parent', labelField: 'title' } }, component: 'object-grid' },
  ...(['simple', 'tabbed', 'wizard', 'split', 'drawer', 'modal'] as const).map((t) => ({
    name: `form ${t}`,
    kind: 'form' as const,
    body: { type: t, sections: [{ fields: ['title'] }] },
    component: 'object-form',
  })),
  { name: 'form without type defaults to simple', kind: 'form', body: { sections: [{ fields: ['title'] }] }, component: 'object-form' },
];

interface Expected {
  readonly code: string;
  readonly path: string;
  readonly patch?: unknown;
  readonly suggestions?: string[];
}

const invalid: ReadonlyArray<Case & { issues: Expected[] }> = [
  {
    name: "type 'list' (incident #6)",
    body: { type: 'list' },
    issues: [{ code: 'typeless_schema', path: '/type', patch: [{ op: 'replace', path: '/type', value: 'grid' }] }],
  },
  {
    name: 'unknown type, no near miss',
    body: { type: 'spreadsheet' },
    issues: [{ code: 'typeless_schema', path: '/type', patch: [{ op: 'replace', path: '/type', value: 'grid' }] }],
  },
  {
    name: 'near miss whose block is present is patched to it',
    body: { type: 'kanbn', kanban: { groupByField: 'status' } },
    issues: [{ code: 'typeless_schema', path: '/type', patch: [{ op: 'replace', path: '/type', value: 'kanban' }], suggestions: ['kanban'] }],
  },
  {
    name: 'near miss without its block is patched to grid',
    body: { type: 'kanbn' },
    issues: [{ code: 'typeless_schema', path: '/type', patch: [{ op: 'replace', path: '/type', value: 'grid' }], suggestions: ['kanban'] }],
  },
  {
    name: 'form of an unknown type',
    kind: 'form',
    body: { type: 'page', sections: [] },
    issues: [{ code: 'typeless_schema', path: '/type', patch: [{ op: 'replace', path: '/type', value: 'simple' }] }],
  },
  {
    name: "a list type on a form ('grid')",
    kind: 'form',
    body: { type: 'grid' },
    issues: [{ code: 'typeless_schema', path: '/type', patch: [{ op: 'replace', path: '/type', value: 'simple' }] }],
  },
  { name: 'kanban without its block', body: { type: 'kanban' }, issues: [{ code: 'layout_without_binding', path: '/kanban' }] },
  {
    name: 'kanban block without groupByField: three groupable fields, no patch',
    body: { type: 'kanban', kanban: { columns: ['title'] } },
    issues: [{ code: 'layout_without_binding', path: '/kanban/groupByField' }],
  },
  {
    name: 'calendar block without startDateField: one date field, patched',
    object: 'exp_note',
    body: { type: 'calendar', calendar: { titleField: 'title' } },
    issues: [{ code: 'layout_without_binding', path: '/calendar/startDateField', patch: [{ op: 'add', path: '/calendar/startDateField', value: 'on' }] }],
  },
  { name: 'calendar without its block', body: { type: 'calendar' }, issues: [{ code: 'layout_without_binding', path: '/calendar' }] },
  {
    name: 'calendar block without startDateField: two date fields, no patch',
    body: { type: 'calendar', calendar: { titleField: 'title' } },
    issues: [{ code: 'layout_without_binding', path: '/calendar/startDateField' }],
  },
  { name: 'timeline without its block', body: { type: 'timeline' }, issues: [{ code: 'layout_without_binding', path: '/timeline' }] },
  { name: 'gantt without its block: one issue for the block', body: { type: 'gantt' }, issues: [{ code: 'layout_without_binding', path: '/gantt' }] },
  {
    name: 'gantt block missing both dates: one issue per key',
    body: { type: 'gantt', gantt: { titleField: 'title' } },
    issues: [
      { code: 'layout_without_binding', path: '/gantt/startDateField' },
      { code: 'layout_without_binding', path: '/gantt/endDateField' },
    ],
  },
];

describe('checkView', () => {
  it.each(valid)('valid: $name', ({ body, kind, component }) => {
    const { graph, view } = viewGraph(body, kind);
    const { schema, issues } = checkView(view, graph, FEB);
    expect(issues).toEqual([]);
    expect(schema.type).toBe(component);
  });

  it.each(invalid)('invalid: $name', ({ body, kind, object, issues: expected }) => {
    const { graph, view } = viewGraph(body, kind, object);
    const { issues } = checkView(view, graph, FEB);
    expect(
      issues.map((i) => ({ code: i.code, path: i.path, ...(i.patch ? { patch: i.patch } : {}), ...(i.suggestions ? { suggestions: i.suggestions } : {}) })),
    ).toEqual(
      expected.map((e) => ({ code: e.code, path: e.path, ...(e.patch ? { patch: e.patch } : {}), ...(e.suggestions ? { suggestions: e.suggestions } : {}) })),
    );
    for (const issue of issues) {
      expect(BuildIssueSchema.parse(issue)).toEqual(issue);
      expect(issue.artifact).toEqual({ type: 'view', name: view.name });
      expect(issue.message).toContain(view.name);
      expect(issue.fix).toContain(view.name);
    }
  });

  it('the cases are named uniquely', () => {
    const names = [...valid, ...invalid].map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('a typeless translation has no type, and says why in the message', () => {
    const { graph, view } = viewGraph({ type: 'list' });
    const { schema, issues } = checkView(view, graph, FEB);
    expect(schema.type).toBeUndefined();
    expect(issues[0]?.message).toMatch(/"list" is a viewKind.*red "Unknown component type" box/);
  });

  it('a component the registry does not register is unknown_component', () => {
    const raw = structuredClone(FEB) as unknown as { components: Record<string, unknown> };
    delete raw.components['object-kanban'];
    const registry: ComponentRegistry = parseRegistry(raw);
    const { graph, view } = viewGraph({ type: 'kanban', kanban: { groupByField: 'status' } });
    const { schema, issues } = checkView(view, graph, registry);
    expect(schema.type).toBe('object-kanban');
    expect(issues.map((i) => [i.code, i.path])).toEqual([['unknown_component', '/type']]);
  });

  it('draft views give draft issues', () => {
    const { graph } = buildGraph(
      collectStack({ objects: [task] }),
      collectStack({ views: [{ listViews: { v: { type: 'list', data: { object: 'exp_task' }, columns: ['title'] } } }] }, { draft: true }),
    );
    const view = graph.views.get('exp_task.v') as ViewNode;
    expect(checkView(view, graph, FEB).issues[0]?.draft).toBe(true);
  });
});

describe('translateView', () => {
  it('resolves fields on the view object: declared, system and unknown', () => {
    const { graph, view } = viewGraph({ type: 'grid', columns: ['title', { field: 'created_at', label: 'Created' }, 'nope'] });
    expect(translateView(view, graph, FEB).props.columns).toEqual([
      { name: 'title', label: 'Title', type: 'text', exists: true },
      { name: 'created_at', label: 'Created', type: 'datetime', exists: true, system: true },
      { name: 'nope', label: 'nope', type: 'unknown', exists: false },
    ]);
  });

  it('binds the type block as props, fields resolved (options carried for kanban lanes)', () => {
    const { graph, view } = viewGraph({ type: 'kanban', kanban: { groupByField: 'status', columns: ['title', 'owner'] } });
    const props = translateView(view, graph, FEB).props;
    expect(props.groupField).toMatchObject({
      name: 'status',
      type: 'select',
      options: [
        { value: 'open', label: 'Open' },
        { value: 'done', label: 'Done' },
      ],
    });
    expect(props.cardFields).toMatchObject([{ name: 'title' }, { name: 'owner', type: 'user', reference: 'sys_user' }]);
  });

  it('tree: object-grid receives the tree block (why: no object-tree is registered)', () => {
    const { graph, view } = viewGraph({ type: 'tree', tree: { parentField: 'parent', labelField: 'title' } });
    const schema = translateView(view, graph, FEB);
    expect(schema.type).toBe('object-grid');
    expect(schema.props.parentField).toMatchObject({ name: 'parent', reference: 'exp_task' });
    expect(FEB.views.list.types.tree?.note).toMatch(/no object-tree/);
  });

  it('forms carry layout and sections with resolved fields', () => {
    const { graph, view } = viewGraph({ type: 'wizard', sections: [{ label: 'One', fields: ['title', { field: 'status', required: true }] }] }, 'form');
    const schema = translateView(view, graph, FEB);
    expect(schema).toMatchObject({
      type: 'object-form',
      props: { layout: 'wizard', sections: [{ label: 'One', fields: [{ name: 'title' }, { name: 'status', required: true }] }] },
    });
  });

  it('is pure: the same view translates to equal schemas', () => {
    const { graph, view } = viewGraph({ type: 'calendar', calendar: { startDateField: 'due' } });
    expect(translateView(view, graph, FEB)).toEqual(translateView(view, graph, FEB));
  });

  it('is total on a view whose body failed its schema', () => {
    const { graph, view } = viewGraph({});
    const broken: ViewNode = { ...view, list: undefined, invalid: true };
    expect(translateView(broken, graph, FEB)).toMatchObject({ type: 'object-grid', props: { columns: [] } });
  });
});

describe('checkView (objectui-2026-09)', () => {
  const NEWEST = RENDERER_PROFILES['objectui-2026-09']!;
  it('a type it does not draw is drawn as a grid: a warning naming why, patched to grid', () => {
    const { view, graph } = viewGraph({ type: 'list' });
    const { schema, issues } = checkView(view, graph, NEWEST);
    expect(schema).toMatchObject({ type: 'object-grid', props: { viewType: 'grid', substitutedFor: { type: 'list' } } });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: 'view_type_fallback', severity: 'warning', patch: [{ op: 'replace', path: '/type', value: 'grid' }] });
    expect(issues[0]?.message).toMatch(/objectui-2026-09 has no case for it, so ListView draws a grid instead/);
  });
  it('a kanban with no lane field groups by the status field the renderer detects: a warning whose patch makes it explicit', () => {
    const { view, graph } = viewGraph({ type: 'kanban' });
    const { schema, issues } = checkView(view, graph, NEWEST);
    expect(schema.props).toMatchObject({ groupBy: { name: 'status' }, inferred: { groupBy: 'status' } });
    expect(issues.map((i) => [i.code, i.severity, i.path])).toEqual([['layout_binding_inferred', 'warning', '/kanban/groupByField']]);
    expect(issues[0]?.patch).toEqual([{ op: 'add', path: '/kanban', value: { groupByField: 'status' } }]);
  });
  it("a timeline reads its dates from the calendar block, as the renderer's resolveTimelineDateBinding does", () => {
    const { view, graph } = viewGraph({ type: 'timeline', calendar: { startDateField: 'starts' } });
    expect(checkView(view, graph, NEWEST).issues).toEqual([]);
    expect(checkView(view, graph, FEB).issues.map((i) => i.code)).toEqual(['layout_without_binding']);
  });
  it("a map with no location refuses, naming the renderer's own screen and both ways to bind it", () => {
    const { view, graph } = viewGraph({ type: 'map', map: { titleField: 'title' } });
    const [issue] = checkView(view, graph, NEWEST).issues;
    expect(issue).toMatchObject({ code: 'layout_without_binding', path: '/map/locationField' });
    expect(issue?.message).toContain('(or locationField, or latitudeField + longitudeField)');
    expect(issue?.message).toContain('"Map configuration required"');
  });
});
