import { type Graph, normalizeSort, type ViewNode } from '@bvl/metadata';
import type { ComponentRegistry, ViewTypeEntry } from './component-registry.ts';
import type { ComponentSchema, ResolvedField } from './component-schema.ts';
import { DEFAULT_REGISTRY } from './default-registry.ts';
import { resolveFieldOf } from './resolve-field-of.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The view's config body (ListView or FormView), `{}` when it failed its schema. */
export function viewBody(view: ViewNode): Record<string, unknown> {
  const body = view.kind === 'form' ? view.form : view.list;
  return isRecord(body) ? body : {};
}

/** The view's effective type (its `type`, or the family default when absent) and its registry entry, if any. */
export function viewTypeOf(view: ViewNode, registry: ComponentRegistry = DEFAULT_REGISTRY): { type: unknown; entry: ViewTypeEntry | undefined } {
  const family = registry.views[view.kind];
  const raw = viewBody(view).type;
  const type = raw === undefined ? family.default : raw;
  const entry = typeof type === 'string' && Object.hasOwn(family.types, type) ? family.types[type] : undefined;
  return { type, entry };
}

/**
 * Translates a view to the component schema a renderer receives, as objectui's ListView switch
 * does: the view type picks the component (registry data), fields are resolved on the view's
 * object, and the type's block (kanban, calendar, …) becomes binding props. A type with no
 * translation (e.g. `list`) yields a schema with no `type`. Pure and total.
 */
export function translateView(view: ViewNode, graph: Graph, registry: ComponentRegistry = DEFAULT_REGISTRY): ComponentSchema {
  const body = viewBody(view);
  const object = view.object ? graph.objects.get(view.object) : undefined;
  const { type, entry } = viewTypeOf(view, registry);
  const props: Record<string, unknown> = {
    objectName: view.object,
    label: typeof body.label === 'string' ? body.label : view.key,
  };
  if (view.kind === 'form') {
    props.layout = type;
    props.sections = formSections(view, (n, l) => resolveFieldOf(object, n, l));
  } else {
    props.viewType = type;
    props.columns = (view.list?.columns ?? []).map((c) =>
      typeof c === 'string' ? resolveFieldOf(object, c) : resolveFieldOf(object, c.field, typeof c.label === 'string' ? c.label : undefined),
    );
    props.filters = view.list?.filter ?? [];
    props.sort = view.list ? normalizeSort(view.list.sort).map(({ field, order }) => ({ field, order })) : [];
  }
  if (entry?.block && entry.bind) {
    const block = body[entry.block];
    if (isRecord(block)) {
      for (const [prop, spec] of Object.entries(entry.bind)) {
        const value = block[spec.from];
        if (value === undefined || value === null || value === '') continue;
        if (spec.kind === 'value') props[prop] = value;
        else if (spec.kind === 'field') {
          if (typeof value === 'string') props[prop] = resolveFieldOf(object, value);
        } else if (Array.isArray(value)) {
          props[prop] = value.filter((v): v is string => typeof v === 'string').map((v) => resolveFieldOf(object, v));
        }
      }
    }
  }
  return entry ? { type: entry.component, id: view.name, props } : { id: view.name, props };
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
