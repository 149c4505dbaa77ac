import type { JsonPatchOp } from '@bvl/build-issue';
import type { StackDoc } from './doc-key.ts';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const esc = (s: string | number): string => String(s).replace(/~/g, '~0').replace(/\//g, '~1');
const at = (...parts: Array<string | number>): string => parts.map((p) => `/${esc(p)}`).join('');

/** A mistake an agent makes, as patches: one per site where it can be made. */
export interface Mutation {
  readonly name: string;
  readonly sites: (doc: StackDoc) => JsonPatchOp[][];
}

/** Every list view of the document: a container's `list` and `listViews`, and an object's inline `listViews`. */
function listViews(doc: StackDoc): Array<{ path: string; view: Json }> {
  const out: Array<{ path: string; view: Json }> = [];
  const views = Array.isArray(doc.views) ? doc.views : [];
  views.forEach((c, i) => {
    if (!isRecord(c)) return;
    if (isRecord(c.list)) out.push({ path: at('views', i, 'list'), view: c.list });
    if (isRecord(c.config) && c.viewKind !== 'form') out.push({ path: at('views', i, 'config'), view: c.config });
    if (isRecord(c.listViews)) for (const [k, v] of Object.entries(c.listViews)) if (isRecord(v)) out.push({ path: at('views', i, 'listViews', k), view: v });
  });
  const objects = Array.isArray(doc.objects) ? doc.objects : [];
  objects.forEach((o, i) => {
    if (isRecord(o) && isRecord(o.listViews))
      for (const [k, v] of Object.entries(o.listViews)) if (isRecord(v)) out.push({ path: at('objects', i, 'listViews', k), view: v });
  });
  return out;
}

function widgets(doc: StackDoc): Array<{ path: string; widget: Json }> {
  const out: Array<{ path: string; widget: Json }> = [];
  const dashboards = Array.isArray(doc.dashboards) ? doc.dashboards : [];
  dashboards.forEach((d, i) => {
    if (isRecord(d) && Array.isArray(d.widgets)) d.widgets.forEach((w, j) => isRecord(w) && out.push({ path: at('dashboards', i, 'widgets', j), widget: w }));
  });
  return out;
}

function fields(doc: StackDoc): Array<{ path: string; field: Json }> {
  const out: Array<{ path: string; field: Json }> = [];
  const objects = Array.isArray(doc.objects) ? doc.objects : [];
  objects.forEach((o, i) => {
    if (isRecord(o) && isRecord(o.fields))
      for (const [k, f] of Object.entries(o.fields)) if (isRecord(f)) out.push({ path: at('objects', i, 'fields', k), field: f });
  });
  return out;
}

const replace = (path: string, value: unknown): JsonPatchOp[] => [{ op: 'replace', path, value: value as never }];
const add = (path: string, value: unknown): JsonPatchOp[] => [{ op: 'add', path, value: value as never }];

/** The mutation kinds, in a fixed order (the names appear in the expected-disagreement file's stacks). */
export const MUTATIONS: readonly Mutation[] = [
  { name: 'view-type-list', sites: (d) => listViews(d).map((v) => add(`${v.path}/type`, 'list')) },
  { name: 'view-type-typo', sites: (d) => listViews(d).map((v) => add(`${v.path}/type`, 'kanbn')) },
  { name: 'view-retired-key', sites: (d) => listViews(d).map((v) => add(`${v.path}/striped`, true)) },
  {
    name: 'kanban-without-group',
    sites: (d) =>
      listViews(d)
        .filter((v) => isRecord(v.view.kanban) && typeof v.view.kanban.groupByField === 'string')
        .map((v) => [{ op: 'remove', path: `${v.path}/kanban/groupByField` }]),
  },
  {
    name: 'view-column-typo',
    sites: (d) =>
      listViews(d).flatMap((v) => {
        const c = Array.isArray(v.view.columns) ? v.view.columns[0] : undefined;
        if (typeof c === 'string') return [replace(`${v.path}/columns/0`, `${c}x`)];
        if (isRecord(c) && typeof c.field === 'string') return [replace(`${v.path}/columns/0/field`, `${c.field}x`)];
        return [];
      }),
  },
  { name: 'widget-type-unlisted', sites: (d) => widgets(d).map((w) => add(`${w.path}/type`, 'stacked-bar')) },
  { name: 'widget-type-unknown', sites: (d) => widgets(d).map((w) => add(`${w.path}/type`, 'piechart')) },
  { name: 'widget-retired-key', sites: (d) => widgets(d).map((w) => add(`${w.path}/actionUrl`, '/somewhere')) },
  {
    name: 'widget-measure-typo',
    sites: (d) =>
      widgets(d)
        .filter((w) => Array.isArray(w.widget.values) && typeof w.widget.values[0] === 'string')
        .map((w) => replace(`${w.path}/values/0`, `${(w.widget.values as string[])[0]}x`)),
  },
  {
    name: 'widget-dataset-dangling',
    sites: (d) =>
      widgets(d)
        .filter((w) => typeof w.widget.dataset === 'string')
        .map((w) => replace(`${w.path}/dataset`, 'no_such_dataset')),
  },
  {
    name: 'lookup-dangling',
    sites: (d) =>
      fields(d)
        .filter((f) => f.field.type === 'lookup' && typeof f.field.reference === 'string')
        .map((f) => replace(`${f.path}/reference`, 'no_such_object')),
  },
  { name: 'field-type-unknown', sites: (d) => fields(d).map((f) => replace(`${f.path}/type`, 'string')) },
  {
    name: 'multiselect-without-options',
    sites: (d) => fields(d).map((f) => [...replace(`${f.path}/type`, 'multiselect'), { op: 'add' as const, path: `${f.path}/options`, value: [] }]),
  },
  { name: 'view-unknown-key', sites: (d) => listViews(d).map((v) => add(`${v.path}/colour`, 'red')) },
  { name: 'widget-unknown-key', sites: (d) => widgets(d).map((w) => add(`${w.path}/colour`, 'red')) },
  {
    name: 'date-default-macro',
    sites: (d) =>
      fields(d)
        .filter((f) => f.field.type === 'date')
        .map((f) => add(`${f.path}/defaultValue`, '$today')),
  },
  { name: 'highlight-field-typo', sites: (d) => objects(d).map((o) => add(`${o.path}/highlightFields`, [`${o.firstField}x`])) },
  { name: 'name-field-typo', sites: (d) => objects(d).map((o) => add(`${o.path}/nameField`, `${o.firstField}x`)) },
];

function objects(doc: StackDoc): Array<{ path: string; firstField: string }> {
  const list = Array.isArray(doc.objects) ? doc.objects : [];
  return list.flatMap((o, i) =>
    isRecord(o) && isRecord(o.fields) && Object.keys(o.fields).length ? [{ path: at('objects', i), firstField: Object.keys(o.fields)[0]! }] : [],
  );
}

/** Where `m` can be made in `doc`. */
export function mutationSites(doc: StackDoc, m: Mutation): JsonPatchOp[][] {
  return m.sites(doc);
}
