import type { DashboardNode, DatasetNode, WidgetNode } from '@bvl/metadata';
import { type ComponentRegistry, type ShapeRule, shapeOf, type WidgetTypeEntry } from './component-registry.ts';
import type { ComponentSchema } from './component-schema.ts';
import { DEFAULT_REGISTRY } from './renderer-profiles.ts';
import { shapeFindings } from './shape-findings.ts';

/** A widget's chart type and how the renderer draws it. */
export interface WidgetType {
  /** The widget's `type`, default the family default (`metric`). */
  readonly type: string;
  /** The translation the renderer uses: the type's own, or the fallback type's. */
  readonly entry: WidgetTypeEntry | undefined;
  /** Set when the renderer draws another chart type in its place. */
  readonly fallback?: { readonly as: string; readonly does: string } | undefined;
}

/** The widget's chart type (its `type`, default `metric`) and the registry's translation of it (the fallback type's, where the renderer has one). */
export function widgetTypeOf(widget: WidgetNode, registry: ComponentRegistry = DEFAULT_REGISTRY): WidgetType {
  const type = widget.def.type ?? registry.widgets.default;
  if (Object.hasOwn(registry.widgets.types, type)) return { type, entry: registry.widgets.types[type] };
  const unknown = registry.widgets.unknown;
  if (unknown?.outcome === 'degrades') return { type, entry: registry.widgets.types[unknown.as], fallback: { as: unknown.as, does: unknown.does } };
  return { type, entry: undefined };
}

/**
 * Translates a dashboard widget to the component schema a renderer receives: the chart type picks
 * the component and its variant (registry data); a type the renderer does not draw gets the
 * profile's fallback type, or no component; a query shape the renderer draws as another component
 * (a chart with no dimension as a KPI tile) gets that component. Dimensions and measures carry the
 * dataset's labels when the dataset exists. A missing dataset is L1's finding (dangling_dataset):
 * the widget is still translated. Pure and total.
 */
export function translateWidget(
  widget: WidgetNode,
  dataset: DatasetNode | undefined,
  dashboard: DashboardNode,
  registry: ComponentRegistry = DEFAULT_REGISTRY,
): ComponentSchema {
  const def = widget.def;
  const { type, entry, fallback } = widgetTypeOf(widget, registry);
  const props: Record<string, unknown> = {
    title: def.title ?? widget.id,
    widgetType: type,
    dataset: def.dataset,
    dimensions: (def.dimensions ?? []).map((name) => {
      const d = dataset?.dimensions.get(name);
      return { name, label: d?.label ?? name, exists: d !== undefined, ...(d?.dateGranularity ? { dateGranularity: d.dateGranularity } : {}) };
    }),
    measures: (def.values ?? []).map((name) => {
      const m = dataset?.measures.get(name);
      const format = m && typeof (m as Record<string, unknown>).format === 'string' ? { format: (m as Record<string, unknown>).format } : {};
      return {
        name,
        label: m?.label ?? name,
        exists: m !== undefined,
        ...(m?.aggregate ? { aggregate: m.aggregate } : {}),
        ...(m?.derived ? { derived: m.derived.op } : {}),
        ...format,
      };
    }),
  };
  if (def.filter !== undefined) props.filter = def.filter;
  if (def.options !== undefined) props.options = def.options;
  if (def.chartConfig !== undefined) props.chartConfig = def.chartConfig;
  if (!entry) return { id: `${dashboard.name}.${widget.id}`, props };
  if (fallback) props.substitutedFor = { type, does: fallback.does };
  const drawn = drawnComponent(widget, entry, registry);
  if (drawn.redirectedBy) props.substitutedFor = { type, does: drawn.redirectedBy.does };
  const variantProp = registry.components[drawn.component]?.variantProp;
  if (variantProp && drawn.variant !== undefined) props[variantProp] = drawn.variant;
  return { type: drawn.component, id: `${dashboard.name}.${widget.id}`, props };
}

/** The props {@link translateWidget} sets besides the variant prop. */
export const WIDGET_BASE_PROPS: ReadonlySet<string> = new Set([
  'title',
  'widgetType',
  'dataset',
  'dimensions',
  'measures',
  'filter',
  'options',
  'chartConfig',
  'substitutedFor',
]);

/**
 * The component (and variant) a widget with a translation is drawn as: its type's, or the one a
 * shape rule draws the query as instead (a chart with no dimension as a KPI tile), with that rule.
 */
export function drawnComponent(
  widget: WidgetNode,
  entry: WidgetTypeEntry,
  registry: ComponentRegistry,
): { readonly component: string; readonly variant: string | undefined; readonly redirectedBy?: ShapeRule } {
  const def = widget.def;
  const counts = { dimensions: def.dimensions?.length ?? 0, measures: def.values?.length ?? 0 };
  const redirect = shapeFindings(shapeOf(registry, entry.component, entry.variant), counts).find((f) => f.rule.drawAs && f.rule.outcome === 'degrades');
  if (redirect?.rule.drawAs) return { component: redirect.rule.drawAs.component, variant: redirect.rule.drawAs.variant, redirectedBy: redirect.rule };
  return { component: entry.component, variant: entry.variant };
}
