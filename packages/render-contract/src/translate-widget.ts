import type { DashboardNode, DatasetNode, WidgetNode } from '@bvl/metadata';
import type { ComponentRegistry, WidgetTypeEntry } from './component-registry.ts';
import type { ComponentSchema } from './component-schema.ts';
import { DEFAULT_REGISTRY } from './default-registry.ts';

/** The widget's chart type (its `type`, default `metric`) and the registry's translation of it, if any. */
export function widgetTypeOf(widget: WidgetNode, registry: ComponentRegistry = DEFAULT_REGISTRY): { type: string; entry: WidgetTypeEntry | undefined } {
  const type = widget.def.type ?? registry.widgets.default;
  return { type, entry: Object.hasOwn(registry.widgets.types, type) ? registry.widgets.types[type] : undefined };
}

/**
 * Translates a dashboard widget to the component schema a renderer receives: the chart type picks
 * the component and its variant (registry data); dimensions and measures carry the dataset's
 * labels when the dataset exists. A missing dataset is L1's finding (dangling_dataset): the widget
 * is still translated. An unknown chart type yields a schema with no `type`. Pure and total.
 */
export function translateWidget(
  widget: WidgetNode,
  dataset: DatasetNode | undefined,
  dashboard: DashboardNode,
  registry: ComponentRegistry = DEFAULT_REGISTRY,
): ComponentSchema {
  const def = widget.def;
  const { type, entry } = widgetTypeOf(widget, registry);
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
  const variantProp = registry.components[entry.component]?.variantProp;
  if (variantProp && entry.variant !== undefined) props[variantProp] = entry.variant;
  return { type: entry.component, id: `${dashboard.name}.${widget.id}`, props };
}
