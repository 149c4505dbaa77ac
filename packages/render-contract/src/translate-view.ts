import { type Graph, normalizeSort, type ObjectNode, type ViewNode } from '@bvl/metadata';
import type { BindSpec, ComponentRegistry, ViewTypeEntry } from './component-registry.ts';
import type { ComponentSchema, ResolvedField } from './component-schema.ts';
import { DEFAULT_REGISTRY } from './renderer-profiles.ts';
import { resolveFieldOf } from './resolve-field-of.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The view's config body (ListView or FormView), `{}` when it failed its schema. */
export function viewBody(view: ViewNode): Record<string, unknown> {
  const body = view.kind === 'form' ? view.form : view.list;
  return isRecord(body) ? body : {};
}

/** The effective type of a view and how the renderer draws it. */
export interface ViewType {
  /** The view's `type`, or the family default when absent. */
  readonly type: unknown;
  /** The translation the renderer uses: the type's own, or the fallback type's. */
  readonly entry: ViewTypeEntry | undefined;
  /** Set when the renderer draws another type in its place: that type, and what the user sees. */
  readonly fallback?: { readonly as: string; readonly does: string } | undefined;
}

/** The view's effective type and its translation (the family's fallback type when the renderer has one for unknown types). */
export function viewTypeOf(view: ViewNode, registry: ComponentRegistry = DEFAULT_REGISTRY): ViewType {
  const family = registry.views[view.kind];
  const raw = viewBody(view).type;
  const type = raw === undefined ? family.default : raw;
  if (typeof type === 'string' && Object.hasOwn(family.types, type)) return { type, entry: family.types[type] };
  const unknown = family.unknown;
  if (unknown?.outcome === 'degrades') return { type, entry: family.types[unknown.as], fallback: { as: unknown.as, does: unknown.does } };
  return { type, entry: undefined };
}

/**
 * The field a renderer picks for a kanban's lanes when none is bound (objectui's detectStatusField):
 * the object's `stageField`, else its first field named status, stage, state or phase.
 */
export function detectStatusField(object: ObjectNode | undefined): string | undefined {
  if (!object || object.invalid) return undefined;
  const stage = (object.def as { stageField?: unknown }).stageField;
  if (typeof stage === 'string' && stage !== '') return stage;
  return ['status', 'stage', 'state', 'phase'].find((name) => object.fields.has(name));
}

/** A bound value: the type's own block first, then the other blocks the renderer also reads. */
function boundValue(body: Record<string, unknown>, block: string, spec: BindSpec): unknown {
  const value = blockValue(body, block, spec.from);
  if (value !== undefined || !spec.alsoFrom) return value;
  for (const s of spec.alsoFrom) {
    const other = blockValue(body, s.block, s.from);
    if (other !== undefined) return other;
  }
  return undefined;
}

/** `body[block][key]` when the block is an object and the value is set (not null or ''). */
function blockValue(body: Record<string, unknown>, block: string, key: string): unknown {
  const b = body[block];
  const value = isRecord(b) ? b[key] : undefined;
  return value !== undefined && value !== null && value !== '' ? value : undefined;
}

/**
 * Translates a view to the component schema a renderer receives, as objectui's ListView switch
 * does: the view type picks the component (registry data; a type the renderer does not draw gets
 * the profile's fallback type, or no component), fields are resolved on the view's object, and the
 * type's block (kanban, calendar, …) becomes binding props — read from other blocks too where the
 * renderer does, inferred where it picks a field itself. Pure and total.
 */
export function translateView(view: ViewNode, graph: Graph, registry: ComponentRegistry = DEFAULT_REGISTRY): ComponentSchema {
  const body = viewBody(view);
  const object = view.object ? graph.objects.get(view.object) : undefined;
  const { type, entry, fallback } = viewTypeOf(view, registry);
  const props: Record<string, unknown> = {
    objectName: view.object,
    label: typeof body.label === 'string' ? body.label : view.key,
  };
  if (view.kind === 'form') {
    props.layout = fallback ? fallback.as : type;
    props.sections = formSections(view, (n, l) => resolveFieldOf(object, n, l));
  } else {
    props.viewType = fallback ? fallback.as : type;
    props.columns = (view.list?.columns ?? []).map((c) =>
      typeof c === 'string' ? resolveFieldOf(object, c) : resolveFieldOf(object, c.field, typeof c.label === 'string' ? c.label : undefined),
    );
    props.filters = view.list?.filter ?? [];
    props.sort = view.list ? normalizeSort(view.list.sort).map(({ field, order }) => ({ field, order })) : [];
  }
  if (fallback) props.substitutedFor = { type: typeof type === 'string' ? type : (JSON.stringify(type) ?? String(type)), does: fallback.does };
  if (entry) bindProps(body, object, entry, props);
  return entry ? { type: entry.component, id: view.name, props } : { id: view.name, props };
}

/** The props {@link translateView} sets besides the type's bindings (and `inferred`, which it sets after them). */
export const VIEW_BASE_PROPS: ReadonlySet<string> = new Set([
  'objectName',
  'label',
  'layout',
  'sections',
  'viewType',
  'columns',
  'filters',
  'sort',
  'substitutedFor',
  'inferred',
]);

/**
 * The type's block (kanban, calendar, …) as binding props, written into `props`: read from other
 * blocks too where the renderer does, inferred where it picks a field itself (then named in
 * `props.inferred`). The part of a view's translation that its binding checks look at; they ask
 * only whether a prop is set, so they pass a `resolve` that does not resolve the field.
 */
export function bindProps(
  body: Record<string, unknown>,
  object: ObjectNode | undefined,
  entry: ViewTypeEntry,
  props: Record<string, unknown>,
  resolve: (object: ObjectNode | undefined, name: string) => unknown = resolveFieldOf,
): void {
  if (!entry.block || !entry.bind) return;
  const inferred: Record<string, string> = {};
  let anyInferred = false;
  for (const prop in entry.bind) {
    if (!Object.hasOwn(entry.bind, prop)) continue;
    const spec = entry.bind[prop]!;
    const value = boundValue(body, entry.block, spec);
    if (value === undefined) {
      const guess = spec.infer === 'status-field' ? detectStatusField(object) : undefined;
      if (guess !== undefined) {
        props[prop] = resolve(object, guess);
        inferred[prop] = guess;
        anyInferred = true;
      }
      continue;
    }
    if (spec.kind === 'value') props[prop] = value;
    else if (spec.kind === 'field') {
      if (typeof value === 'string') props[prop] = resolve(object, value);
    } else if (Array.isArray(value)) {
      props[prop] = value.filter((v): v is string => typeof v === 'string').map((v) => resolve(object, v));
    }
  }
  if (anyInferred) props.inferred = inferred;
}

/** Form sections (or their `groups` alias) with every field resolved. */
function formSections(
  view: ViewNode,
  resolve: (name: string, label?: string) => ResolvedField,
): Array<{ name?: string; label?: string; columns?: number; fields: ResolvedField[] }> {
  const form = view.form;
  if (!form) return [];
  return (form.sections ?? form.groups ?? []).map((s) => {
    const raw = s as Record<string, unknown>;
    const fields = (s.fields ?? []).map((f) => {
      if (typeof f === 'string') return resolve(f);
      const r = resolve(f.field, typeof f.label === 'string' ? f.label : undefined);
      return f.required === true && !r.required ? { ...r, required: true } : r;
    });
    return {
      ...(typeof s.name === 'string' ? { name: s.name } : {}),
      ...(typeof s.label === 'string' ? { label: s.label } : {}),
      ...(typeof raw.columns === 'number' ? { columns: raw.columns } : {}),
      fields,
    };
  });
}
