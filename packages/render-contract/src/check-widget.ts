import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { clearWinner, type DashboardNode, type DatasetNode, didYouMean, pointer, type WidgetNode } from '@bvl/metadata';
import type { Checked } from './check-view.ts';
import { type Arity, type ComponentRegistry, isRegistered, type ShapePart, shapeOf } from './component-registry.ts';
import type { ComponentSchema } from './component-schema.ts';
import { DEFAULT_REGISTRY } from './renderer-profiles.ts';
import { describeArity, partCounts, type ShapeCounts, type ShapeFinding, shapeFindings } from './shape-findings.ts';
import { drawnComponent, translateWidget, WIDGET_BASE_PROPS, widgetTypeOf } from './translate-widget.ts';

/**
 * Translates a widget and judges the result against the renderer profile: a chart type it does not
 * draw (`unknown_widget_type`, the red box — or `widget_type_fallback` where it draws a bar chart
 * instead), a component the registry does not register (`unknown_component`), a query shape it
 * refuses (`unsatisfiable_query_shape`) or draws only part of (`query_shape_degraded`), and a
 * table/pivot of count measures only with no dimension (`count_only_table`). Pure and total.
 */
export function checkWidget(
  widget: WidgetNode,
  dataset: DatasetNode | undefined,
  dashboard: DashboardNode,
  registry: ComponentRegistry = DEFAULT_REGISTRY,
): Checked {
  const schema = translateWidget(widget, dataset, dashboard, registry);
  return { schema, issues: judgeWidget(widget, dataset, dashboard, registry, schema) };
}

/**
 * The issues of {@link checkWidget} without the component schema: what they look at of the
 * translation is the component the widget is drawn as and its variant prop, so only those are
 * worked out (unless the variant prop shares a name with another prop of the translation: then the
 * whole translation is made, so the value read is always translateWidget's). L2's pass over a graph.
 */
export function widgetIssues(
  widget: WidgetNode,
  dataset: DatasetNode | undefined,
  dashboard: DashboardNode,
  registry: ComponentRegistry = DEFAULT_REGISTRY,
): BuildIssue[] {
  return judgeWidget(widget, dataset, dashboard, registry);
}

function judgeWidget(
  widget: WidgetNode,
  dataset: DatasetNode | undefined,
  dashboard: DashboardNode,
  registry: ComponentRegistry,
  schema?: ComponentSchema,
): BuildIssue[] {
  const issues: BuildIssue[] = [];
  const def = widget.def;
  const { type, entry, fallback } = widgetTypeOf(widget, registry);
  // Built only for an issue (almost every widget has none): the pointer, the issue base, the subject.
  const at = (...rest: Array<string | number>) => pointer('widgets', widget.index, ...rest);

  if (!entry || fallback) {
    const chartTypes = Object.keys(registry.widgets.types);
    const winner = clearWinner(type, chartTypes);
    issues.push(
      makeIssue({
        code: fallback ? 'widget_type_fallback' : 'unknown_widget_type',
        ...issueBase(widget, dashboard),
        message: fallback
          ? `${whoIs(widget, dashboard)} has type "${type}", which is not a chart type ${registry.name} draws: ${fallback.does}, not the ${type} that was asked for.`
          : `${whoIs(widget, dashboard)} has type "${type}", which is not a chart type: the dashboard has no component for it and shows a red "Unknown component type" box in its place.`,
        fix: `Set the type of widget "${widget.id}" to one of: ${chartTypes.join(', ')}.`,
        path: at('type'),
        suggestions: didYouMean(type, chartTypes),
        ...(winner ? { patch: [{ op: 'replace' as const, path: at('type'), value: winner }] } : {}),
      }),
    );
    if (!entry) return issues;
  }
  const drawnAs = schema ? undefined : drawnComponent(widget, entry, registry);
  const component = schema ? (schema.type ?? entry.component) : drawnAs!.component;
  if (!isRegistered(registry, component)) {
    issues.push(
      makeIssue({
        code: 'unknown_component',
        ...issueBase(widget, dashboard),
        message: `${whoIs(widget, dashboard)} of type "${type}" translates to component "${component}", which the ${registry.name} component registry does not register, so the dashboard shows a red "Unknown component type" box.`,
        fix: `Use a chart type whose component is registered, or register "${component}" in the ${registry.name} registry.`,
        path: at('type'),
      }),
    );
    return issues;
  }

  const dims = def.dimensions ?? [];
  const values = def.values ?? [];
  const counts = { dimensions: dims.length, measures: values.length };
  const own = shapeFindings(shapeOf(registry, entry.component, entry.variant), counts);
  const redirected = component !== entry.component;
  const variantProp = registry.components[component]?.variantProp;
  const variantOf = (prop: string): unknown => {
    if (schema) return schema.props[prop];
    if (drawnAs!.variant !== undefined) return drawnAs!.variant;
    return WIDGET_BASE_PROPS.has(prop) ? translateWidget(widget, dataset, dashboard, registry).props[prop] : undefined;
  };
  const drawn = redirected ? shapeFindings(shapeOf(registry, component, variantProp ? variantOf(variantProp) : undefined), counts) : [];
  // A query drawn as another component (a chart with no dimension is a KPI tile) meets that component's rules, not the chart's.
  const redirect = own.find((f) => f.rule.drawAs && f.rule.outcome === 'degrades');
  // shapeFindings lists refusals first already.
  const findings =
    redirected && redirect ? [redirect, ...drawn].sort((a, b) => (a.rule.outcome === b.rule.outcome ? 0 : a.rule.outcome === 'refuses' ? -1 : 1)) : own;
  const refusal = findings.find((f) => f.rule.outcome === 'refuses');
  const describe = (f: ShapeFinding): string => describeFinding(f, counts);
  const declared = (names: Iterable<string>) => (dataset ? ` (dataset "${dataset.name}" has: ${[...names].join(', ') || 'none'})` : '');
  const pathOf = (f: ShapeFinding): string =>
    f.part === 'dimensions'
      ? at('dimensions')
      : f.part === 'measures'
        ? at('values')
        : f.part === 'series'
          ? at(values.length >= 2 ? 'values' : 'dimensions')
          : at();
  if (refusal) {
    issues.push(
      makeIssue({
        code: 'unsatisfiable_query_shape',
        ...issueBase(widget, dashboard),
        message: refusal.arity
          ? `${whoIs(widget, dashboard)} is a ${type} with ${refusal.count} ${partName(refusal.part)}, but a ${type} shows ${describeArity(refusal.arity)} ${partName(refusal.part)}: it renders as an empty widget.`
          : `${whoIs(widget, dashboard)} is a ${type} with ${describe(refusal)}: ${refusal.rule.does}.`,
        fix: fixFor(refusal, widget.id, declared(refusal.part === 'dimensions' ? (dataset?.dimensions.keys() ?? []) : (dataset?.measures.keys() ?? []))),
        path: pathOf(refusal),
      }),
    );
  } else {
    for (const f of findings)
      issues.push(
        makeIssue({
          code: 'query_shape_degraded',
          ...issueBase(widget, dashboard),
          message: `${whoIs(widget, dashboard)} is a ${type} with ${describe(f)}: ${registry.name} draws it, but ${f.rule.does}.`,
          fix: fixFor(f, widget.id, declared(f.part === 'dimensions' ? (dataset?.dimensions.keys() ?? []) : (dataset?.measures.keys() ?? []))),
          path: pathOf(f),
        }),
      );
  }
  if (entry.warnCountOnly && dims.length === 0 && values.length > 0 && dataset) {
    const measures = values.map((v) => dataset.measures.get(v));
    if (measures.every((m) => m !== undefined && m.aggregate === 'count' && !m.derived)) {
      issues.push(
        makeIssue({
          code: 'count_only_table',
          ...issueBase(widget, dashboard),
          message: `${whoIs(widget, dashboard)} is a ${type} that selects only count measures (${values.join(', ')}) and no dimension, so it shows a single row with the totals instead of a list of records.`,
          fix: `Add a dimension of dataset "${dataset.name}" to widget "${widget.id}" (it has: ${[...dataset.dimensions.keys()].join(', ') || 'none'}), or make it a metric widget.`,
          path: at('dimensions'),
        }),
      );
    }
  }
  return issues;
}

function issueBase(widget: WidgetNode, dashboard: DashboardNode) {
  return {
    artifact: { type: 'dashboard', name: dashboard.name },
    ref: { type: 'dashboard', name: dashboard.name, member: widget.id },
    draft: dashboard.draft,
  };
}

const whoIs = (widget: WidgetNode, dashboard: DashboardNode): string => `Widget "${widget.id}" of dashboard "${dashboard.name}"`;

const partName = (part: ShapePart): string => (part === 'columns' ? 'dimensions and measures together' : part);

/** "2 measures and 2 dimensions" — the counts a rule looked at. */
function describeFinding(f: ShapeFinding, counts: ShapeCounts): string {
  const n = partCounts(counts);
  return (Object.keys(f.rule.when) as ShapePart[])
    .map((part) => {
      if (part === 'series') return `${n.series > 1 ? 'several series' : 'one series'} (one per measure, or one per value of a second dimension)`;
      return n[part] === 0
        ? `no ${part === 'columns' ? 'dimension or measure' : part.slice(0, -1)}`
        : `${n[part]} ${n[part] === 1 ? part.slice(0, -1) : partName(part)}`;
    })
    .join(' and ');
}

/** The fix for a shape rule: add what is missing, or keep fewer of what there is too much of. */
function fixFor(f: ShapeFinding, id: string, declared: string): string {
  const range: Arity = f.rule.when[f.part] ?? {};
  const tooFew = range.max !== undefined && (range.min ?? 0) === 0;
  if (f.part === 'dimensions')
    return tooFew
      ? `Add a dimension to widget "${id}"${declared}, or make it a metric widget.`
      : `Keep at most ${(range.min ?? 1) - 1} dimension(s) in widget "${id}", or use a table or pivot.`;
  if (f.part === 'measures')
    return tooFew
      ? `Add a measure to the values of widget "${id}"${declared}.`
      : `Keep at most ${(range.min ?? 1) - 1} value(s) in widget "${id}", or use a table or a bar chart.`;
  if (f.part === 'series') return `Keep one measure and at most one dimension in widget "${id}", or use a bar chart.`;
  return `Select at least one dimension or measure in widget "${id}".`;
}
