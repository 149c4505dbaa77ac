/** An inclusive count range; a missing bound is unbounded (min defaults to 0). */
export interface Arity {
  readonly min?: number;
  readonly max?: number;
}

/** What query shape a component (or one variant of it) can show. */
export interface QueryShape {
  readonly dimensions?: Arity;
  readonly measures?: Arity;
  /** Dimensions plus measures. */
  readonly columns?: Arity;
}

/** The reference renderer's templates; a registry names one per component it wants drawn. */
export const TEMPLATES = ['grid', 'kanban', 'calendar', 'gallery', 'timeline', 'gantt', 'map', 'list-chart', 'form', 'chart', 'metric', 'table'] as const;
export type Template = (typeof TEMPLATES)[number];

/** One registered component type. */
export interface ComponentEntry {
  /** How the reference renderer draws it; a registered component without one renders as a generic region. */
  readonly template?: Template;
  /** Props without which the component can only draw an empty widget (the renderer would fall back to literal names). */
  readonly requiredProps?: readonly string[];
  /** Shape of query the component can show (widgets). */
  readonly shape?: QueryShape;
  /** The prop that selects a variant (e.g. chartType), and each variant's shape. */
  readonly variantProp?: string;
  readonly variants?: Readonly<Record<string, QueryShape>>;
}

/** How one value of a view block becomes a component prop: a field, a list of fields, or a plain value. */
export interface BindSpec {
  readonly from: string;
  readonly kind: 'field' | 'fields' | 'value';
  /** The literal field name the renderer silently uses when the binding is missing. */
  readonly fallback?: string;
  /** Field types that can fill this binding (used to suggest a field when it is missing). */
  readonly fieldTypes?: readonly string[];
}

/** One view type's translation. */
export interface ViewTypeEntry {
  readonly component: string;
  /** The view config key holding the type's block (kanban, calendar, …). */
  readonly block?: string;
  readonly bind?: Readonly<Record<string, BindSpec>>;
  /** Why this mapping was chosen, when it is not objectui's own. */
  readonly note?: string;
}

/** One widget chart type's translation. */
export interface WidgetTypeEntry {
  readonly component: string;
  readonly variant?: string;
  /** Warn when the widget selects only count measures and no dimension (defect class #8). */
  readonly warnCountOnly?: boolean;
}

/** A renderer's component registry, as data (registry/objectui.json is objectui's). */
export interface ComponentRegistry {
  readonly name: string;
  readonly source?: string;
  readonly components: Readonly<Record<string, ComponentEntry>>;
  readonly views: {
    readonly list: { readonly default: string; readonly types: Readonly<Record<string, ViewTypeEntry>> };
    readonly form: { readonly default: string; readonly types: Readonly<Record<string, ViewTypeEntry>> };
  };
  readonly widgets: { readonly default: string; readonly types: Readonly<Record<string, WidgetTypeEntry>> };
}

/** A registry file that does not have the registry shape: a configuration bug, not bad metadata. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a parsed registry file and returns it typed. Throws {@link RegistryError} naming the first
 * bad key: a broken registry must stop the tool, not silently pass every view.
 */
export function parseRegistry(raw: unknown): ComponentRegistry {
  const fail = (where: string, what: string): never => {
    throw new RegistryError(`component registry: ${where} ${what}`);
  };
  if (!isRecord(raw)) return fail('(root)', 'is not an object');
  if (typeof raw.name !== 'string') fail('name', 'must be a string');
  if (!isRecord(raw.components)) fail('components', 'must be an object');
  const components = raw.components as Record<string, unknown>;
  const checkArity = (where: string, a: unknown): void => {
    if (a === undefined) return;
    if (!isRecord(a)) fail(where, 'must be {min?, max?}');
    const r = a as Record<string, unknown>;
    for (const k of ['min', 'max'])
      if (r[k] !== undefined && !(Number.isInteger(r[k]) && (r[k] as number) >= 0)) fail(`${where}.${k}`, 'must be a non-negative integer');
  };
  const checkShape = (where: string, s: unknown): void => {
    if (s === undefined) return;
    if (!isRecord(s)) fail(where, 'must be an object');
    for (const k of ['dimensions', 'measures', 'columns']) checkArity(`${where}.${k}`, (s as Record<string, unknown>)[k]);
  };
  for (const [type, entry] of Object.entries(components)) {
    if (!isRecord(entry)) fail(`components.${type}`, 'must be an object');
    const e = entry as Record<string, unknown>;
    if (e.template !== undefined && !(TEMPLATES as readonly unknown[]).includes(e.template))
      fail(`components.${type}.template`, `must be one of ${TEMPLATES.join(', ')}`);
    if (e.requiredProps !== undefined && !(Array.isArray(e.requiredProps) && e.requiredProps.every((p) => typeof p === 'string')))
      fail(`components.${type}.requiredProps`, 'must be a string array');
    checkShape(`components.${type}.shape`, e.shape);
    if (e.variants !== undefined) {
      if (!isRecord(e.variants) || typeof e.variantProp !== 'string') fail(`components.${type}.variants`, 'needs an object of shapes and a string variantProp');
      for (const [v, s] of Object.entries(e.variants as Record<string, unknown>)) checkShape(`components.${type}.variants.${v}`, s);
    }
  }
  const checkTypes = (where: string, family: unknown, extra: (w: string, e: Record<string, unknown>) => void): void => {
    if (!isRecord(family) || typeof family.default !== 'string' || !isRecord(family.types)) return fail(where, 'must be {default: string, types: {…}}');
    if (!Object.hasOwn(family.types, family.default)) fail(`${where}.default`, `"${family.default}" is not one of its types`);
    for (const [t, entry] of Object.entries(family.types)) {
      if (!isRecord(entry) || typeof entry.component !== 'string') fail(`${where}.types.${t}`, 'must have a string component');
      extra(`${where}.types.${t}`, entry as Record<string, unknown>);
    }
  };
  if (!isRecord(raw.views)) fail('views', 'must be an object');
  const views = raw.views as Record<string, unknown>;
  const viewExtra = (w: string, e: Record<string, unknown>): void => {
    if (e.block !== undefined && typeof e.block !== 'string') fail(`${w}.block`, 'must be a string');
    if (e.bind === undefined) return;
    if (!isRecord(e.bind) || e.block === undefined) fail(`${w}.bind`, 'must be an object, and needs a block');
    for (const [p, b] of Object.entries(e.bind as Record<string, unknown>)) {
      if (!isRecord(b) || typeof b.from !== 'string' || !['field', 'fields', 'value'].includes(b.kind as string))
        fail(`${w}.bind.${p}`, 'must be {from: string, kind: field|fields|value}');
    }
  };
  checkTypes('views.list', views.list, viewExtra);
  checkTypes('views.form', views.form, viewExtra);
  checkTypes('widgets', raw.widgets, (w, e) => {
    if (e.variant !== undefined && typeof e.variant !== 'string') fail(`${w}.variant`, 'must be a string');
  });
  return raw as unknown as ComponentRegistry;
}

/** The shape a component (and variant) can show, if the registry declares one. */
export function shapeOf(registry: ComponentRegistry, component: string, variant: unknown): QueryShape | undefined {
  const entry = Object.hasOwn(registry.components, component) ? registry.components[component] : undefined;
  if (!entry) return undefined;
  if (entry.variants && typeof variant === 'string' && Object.hasOwn(entry.variants, variant)) return entry.variants[variant];
  return entry.shape;
}

/** Whether `type` is a registered component type (own keys only: `constructor` is not a component). */
export function isRegistered(registry: ComponentRegistry, type: string | undefined): type is string {
  return type !== undefined && Object.hasOwn(registry.components, type);
}
