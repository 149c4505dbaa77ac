import type { DashboardNode, Graph, ViewNode, WidgetNode } from './graph.ts';
import { pointer } from './json-pointer.ts';
import type { RetiredKey, SpecProfile, SpecSurface } from './spec-profiles.ts';

/** One thing the target spec refuses: a value outside a closed enum, a retired key, a missing required key. */
export type SpecRefusal = {
  readonly artifact: { readonly type: 'view' | 'dashboard'; readonly name: string };
  /** The widget id, for a refusal inside a widget. */
  readonly member?: string | undefined;
  /** RFC 6901 pointer into the artifact (a view's: into its config, before rebasing). */
  readonly path: string;
  /** The spec schema that refuses it, e.g. `ListViewSchema.type`. */
  readonly rule: string;
} & (
  | { readonly kind: 'not-in-enum'; readonly value: string; readonly allowed: readonly string[]; readonly what: string }
  | { readonly kind: 'retired'; readonly key: string; readonly retired: RetiredKey }
  | { readonly kind: 'missing'; readonly block: string; readonly key: string }
);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: object, k: string): boolean => Object.hasOwn(o, k);

/** Whether `body` holds a key the spec retired: almost no body does, so this is asked before any list is built. */
function holdsRetired(body: Record<string, unknown>, retired: Readonly<Record<string, RetiredKey>>): boolean {
  for (const key in retired) if (own(body, key)) return true;
  return false;
}

function retiredKeys(
  body: Record<string, unknown>,
  spec: SpecProfile,
  surface: SpecSurface,
  schema: string,
  at: (key: string) => string,
  base: Pick<SpecRefusal, 'artifact' | 'member'>,
): SpecRefusal[] {
  const retired = spec.retired[surface];
  return Object.keys(retired)
    .filter((key) => own(body, key))
    .sort()
    .map((key) => ({ ...base, kind: 'retired', key, retired: retired[key]!, path: at(key), rule: `${schema}.${key}` }));
}

/** What the spec refuses in one view: its type, its retired keys, a block's missing required keys. Views that failed bvl's schema are skipped (already invalid). */
export function viewRefusals(view: ViewNode, spec: SpecProfile): SpecRefusal[] {
  const body = view.kind === 'form' ? view.form : view.list;
  if (view.invalid || !isRecord(body)) return [];
  const surface = view.kind === 'form' ? 'formView' : 'listView';
  const allowed = view.kind === 'form' ? spec.formViewTypes : spec.listViewTypes;
  const type = body.type;
  const badType = typeof type === 'string' && !allowed.includes(type);
  const retired = holdsRetired(body, spec.retired[surface]);
  let missing = false;
  if (view.kind === 'list')
    for (const block in spec.requiredBlockKeys) {
      if (!Object.hasOwn(spec.requiredBlockKeys, block)) continue;
      const b = body[block];
      if (isRecord(b) && spec.requiredBlockKeys[block]!.some((key) => typeof b[key] !== 'string' || b[key] === '')) missing = true;
    }
  // Almost every view is refused nothing: say so without building anything.
  if (!badType && !retired && !missing) return [];
  const base = { artifact: { type: 'view', name: view.name } } as const;
  const out: SpecRefusal[] = [];
  const schema = view.kind === 'form' ? 'FormViewSchema' : 'ListViewSchema';
  if (badType) out.push({ ...base, kind: 'not-in-enum', value: type, allowed, what: `${view.kind} view type`, path: '/type', rule: `${schema}.type` });
  if (retired) out.push(...retiredKeys(body, spec, surface, schema, (k) => pointer(k), base));
  if (missing)
    for (const block in spec.requiredBlockKeys) {
      if (!Object.hasOwn(spec.requiredBlockKeys, block)) continue;
      const keys = spec.requiredBlockKeys[block]!;
      const b = body[block];
      if (!isRecord(b)) continue;
      const schemaOf = `${block[0]!.toUpperCase()}${block.slice(1)}ConfigSchema`;
      for (const key of keys)
        if (typeof b[key] !== 'string' || b[key] === '')
          out.push({ ...base, kind: 'missing', block, key, path: pointer(block, key), rule: `${schemaOf}.${key}` });
    }
  return out;
}

/** What the spec refuses in one widget: its chart type and its retired keys. */
export function widgetRefusals(widget: WidgetNode, dashboard: DashboardNode, spec: SpecProfile): SpecRefusal[] {
  const type = widget.def.type;
  const badType = typeof type === 'string' && !spec.widgetTypes.includes(type);
  const retired = holdsRetired(widget.def, spec.retired.widget);
  if (!badType && !retired) return [];
  const base = { artifact: { type: 'dashboard', name: dashboard.name }, member: widget.id } as const;
  const out: SpecRefusal[] = [];
  if (badType)
    out.push({
      ...base,
      kind: 'not-in-enum',
      value: type,
      allowed: spec.widgetTypes,
      what: 'widget type',
      path: pointer('widgets', widget.index, 'type'),
      rule: 'ChartTypeSchema',
    });
  if (retired) out.push(...retiredKeys(widget.def, spec, 'widget', 'DashboardWidgetSchema', (k) => pointer('widgets', widget.index, k), base));
  return out;
}

/** What the spec refuses in one dashboard: its own retired keys, then each widget's refusals. */
export function dashboardRefusals(dashboard: DashboardNode, spec: SpecProfile): SpecRefusal[] {
  if (dashboard.invalid) return [];
  const out: SpecRefusal[] = [];
  if (holdsRetired(dashboard.def, spec.retired.dashboard)) {
    const base = { artifact: { type: 'dashboard', name: dashboard.name } } as const;
    out.push(...retiredKeys(dashboard.def, spec, 'dashboard', 'DashboardSchema', (k) => pointer(k), base));
  }
  for (const w of dashboard.widgets) {
    const refusals = widgetRefusals(w, dashboard, spec);
    if (refusals.length > 0) out.push(...refusals);
  }
  return out;
}

/** Every refusal of the graph's target spec, views then dashboards, in graph order. */
export function specRefusals(graph: Graph): SpecRefusal[] {
  const out: SpecRefusal[] = [];
  for (const v of graph.views.values()) {
    const refusals = viewRefusals(v, graph.spec);
    if (refusals.length > 0) out.push(...refusals);
  }
  for (const d of graph.dashboards.values()) {
    const refusals = dashboardRefusals(d, graph.spec);
    if (refusals.length > 0) out.push(...refusals);
  }
  return out;
}

/** Whether `path` is `refused` or lies under it: a render finding there is about what the spec already refuses. */
export function isUnderRefusal(path: string, refused: string): boolean {
  return path === refused || path.startsWith(`${refused}/`);
}
