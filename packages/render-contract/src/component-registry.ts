/** An inclusive count range; a missing bound is unbounded (min defaults to 0). */
export interface Arity {
  readonly min?: number;
  readonly max?: number;
}

/** What a component (or one variant of it) can show, as counts; outside them it renders an empty widget. */
export interface QueryShape {
  readonly dimensions?: Arity;
  readonly measures?: Arity;
  /** Dimensions plus measures. */
  readonly columns?: Arity;
}

/**
 * What a user sees of a view or widget, as bvl names a renderer's behaviour: it `renders` as
 * authored, `degrades` (draws something usable but less or other than authored), `refuses` (draws a
 * refusal or an empty widget in its place), or shows the `red-box` ("Unknown component type").
 */
export type Outcome = 'renders' | 'degrades' | 'refuses' | 'red-box';

/** The counts a shape rule can test: `series` is what a chart draws (one per measure, or per value of a second dimension). */
export const SHAPE_PARTS = ['dimensions', 'measures', 'columns', 'series'] as const;
export type ShapePart = (typeof SHAPE_PARTS)[number];

/**
 * One behaviour of a renderer for a widget's query shape: when every count in `when` is in its
 * range, the renderer `refuses` or `degrades`, and `does` says what the user then sees.
 */
export interface ShapeRule {
  readonly when: Readonly<Partial<Record<ShapePart, Arity>>>;
  readonly outcome: 'refuses' | 'degrades';
  /** What the renderer does, for messages ("the tile shows the first measure only"). */
  readonly does: string;
  /** The renderer source file that decides it. */
  readonly source?: string;
  /** The component the renderer draws instead (a chart with no dimension becomes a KPI tile). */
  readonly drawAs?: { readonly component: string; readonly variant?: string };
}

/** The shape of one component or variant: legacy counts (anything outside them refuses) and/or rules. */
export interface VariantShape extends QueryShape {
  readonly rules?: readonly ShapeRule[];
}

/** The reference renderer's templates; a registry names one per component it wants drawn. */
export const TEMPLATES = ['grid', 'kanban', 'calendar', 'gallery', 'timeline', 'gantt', 'map', 'list-chart', 'form', 'chart', 'metric', 'table'] as const;
export type Template = (typeof TEMPLATES)[number];

/** What a component does when its bindings are not all there. */
export interface MissingBinding {
  readonly outcome: 'refuses';
  readonly does: string;
  readonly source?: string;
}

/** One registered component type. */
export interface ComponentEntry {
  /** How the reference renderer draws it; a registered component without one renders as a generic region. */
  readonly template?: Template;
  /** Props without which the component can only draw an empty widget (all of them are needed). */
  readonly requiredProps?: readonly string[];
  /** Alternative sets of props, any one of which (all of its props) lets the component draw. */
  readonly requires?: ReadonlyArray<readonly string[]>;
  /** What the component does when neither `requiredProps` nor any `requires` set is bound. */
  readonly missing?: MissingBinding;
  /** Shape of query the component can show (widgets). */
  readonly shape?: VariantShape;
  /** The prop that selects a variant (e.g. chartType), and each variant's shape. */
  readonly variantProp?: string;
  readonly variants?: Readonly<Record<string, VariantShape>>;
  /** Why the component is in the registry when it is not a registered type of the renderer (e.g. drawn inside a widget). */
  readonly note?: string;
}

/** How one value of a view block becomes a component prop: a field, a list of fields, or a plain value. */
export interface BindSpec {
  readonly from: string;
  readonly kind: 'field' | 'fields' | 'value';
  /** The literal field name the renderer silently uses when the binding is missing. */
  readonly fallback?: string;
  /** Field types that can fill this binding (used to suggest a field when it is missing). */
  readonly fieldTypes?: readonly string[];
  /** Other view blocks the renderer reads the value from, in order, when the type's own block lacks it. */
  readonly alsoFrom?: ReadonlyArray<{ readonly block: string; readonly from: string }>;
  /** How the renderer picks a field itself when none is bound (`status-field`: the object's stageField, else a status/stage/state/phase field). */
  readonly infer?: 'status-field';
}

/** One view type's translation. */
export interface ViewTypeEntry {
  readonly component: string;
  /** The view config key holding the type's block (kanban, calendar, …). */
  readonly block?: string;
  readonly bind?: Readonly<Record<string, BindSpec>>;
  /** Why this mapping was chosen, when it is not the renderer's own. */
  readonly note?: string;
  /** The renderer source file that decides this translation. */
  readonly source?: string;
}

/** One widget chart type's translation. */
export interface WidgetTypeEntry {
  readonly component: string;
  readonly variant?: string;
  /** Warn when the widget selects only count measures and no dimension (defect class #8). */
  readonly warnCountOnly?: boolean;
  readonly source?: string;
}

/**
 * What a renderer does with a view or widget type it has no translation for: the red box, or a
 * fallback type it draws instead (a grid, a bar chart).
 */
export type UnknownType =
  | { readonly outcome: 'red-box'; readonly source?: string }
  | { readonly outcome: 'degrades'; readonly as: string; readonly does: string; readonly source?: string };

/** A family of types (list views, form views, widgets): its default, its types, and what an unknown type gets. */
export interface TypeFamily<E> {
  readonly default: string;
  readonly types: Readonly<Record<string, E>>;
  /** Absent: the red box. */
  readonly unknown?: UnknownType;
}

/** A renderer's component registry, as data: one file per renderer release (registry/*.json). */
export interface ComponentRegistry {
  readonly name: string;
  readonly source?: string;
  readonly components: Readonly<Record<string, ComponentEntry>>;
  readonly views: {
    readonly list: TypeFamily<ViewTypeEntry>;
    readonly form: TypeFamily<ViewTypeEntry>;
  };
  readonly widgets: TypeFamily<WidgetTypeEntry>;
}

/** A registry file that does not have the registry shape: a configuration bug, not bad metadata. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

/** The shape a component (and variant) can show, if the registry declares one. */
export function shapeOf(registry: ComponentRegistry, component: string, variant: unknown): VariantShape | undefined {
  const entry = Object.hasOwn(registry.components, component) ? registry.components[component] : undefined;
  if (!entry) return undefined;
  if (entry.variants && typeof variant === 'string' && Object.hasOwn(entry.variants, variant)) return entry.variants[variant];
  return entry.shape;
}

/** Whether `type` is a registered component type (own keys only: `constructor` is not a component). */
export function isRegistered(registry: ComponentRegistry, type: string | undefined): type is string {
  return type !== undefined && Object.hasOwn(registry.components, type);
}

/** The sets of props any one of which lets a component draw (`requiredProps` is one set). */
export function bindingSets(entry: ComponentEntry | undefined): ReadonlyArray<readonly string[]> {
  if (!entry) return [];
  const sets = [...(entry.requires ?? [])];
  if (entry.requiredProps?.length) sets.push(entry.requiredProps);
  return sets;
}

/** The binding set a component lacks the most of, or undefined when one set is fully bound (or none is required). */
export function missingBindings(entry: ComponentEntry | undefined, bound: (prop: string) => boolean): readonly string[] | undefined {
  const sets = bindingSets(entry);
  if (sets.length === 0 || sets.some((set) => set.every(bound))) return undefined;
  // Report the set closest to complete (the first of equals): its missing props are the fix.
  let best: string[] = [];
  let bestMissing = Number.POSITIVE_INFINITY;
  for (const set of sets) {
    const missing = set.filter((p) => !bound(p));
    if (missing.length < bestMissing) {
      best = missing;
      bestMissing = missing.length;
    }
  }
  return best;
}
