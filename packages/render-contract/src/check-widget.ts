import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { clearWinner, type DashboardNode, type DatasetNode, didYouMean, pointer, type WidgetNode } from '@bvl/metadata';
import type { Checked } from './check-view.ts';
import { type ComponentRegistry, isRegistered, shapeOf } from './component-registry.ts';
import { DEFAULT_REGISTRY } from './default-registry.ts';
import { describeArity, shapeProblem } from './shape-problem.ts';
import { translateWidget, widgetTypeOf } from './translate-widget.ts';

/**
 * Translates a widget and judges the result: a chart type the renderer does not know
 * (`unknown_widget_type`), a component the registry does not register (`unknown_component`), a
 * dimensions/measures count its component cannot show (`unsatisfiable_query_shape`), and a
 * table/pivot of count measures only with no dimension (`count_only_table`). Pure and total.
 */
export function checkWidget(
  widget: WidgetNode,
  dataset: DatasetNode | undefined,
  dashboard: DashboardNode,
  registry: ComponentRegistry = DEFAULT_REGISTRY,
): Checked {
  const schema = translateWidget(widget, dataset, dashboard, registry);
  const issues: BuildIssue[] = [];
  const def = widget.def;
  const { type, entry } = widgetTypeOf(widget, registry);
  const at = (...rest: Array<string | number>) => pointer('widgets', widget.index, ...rest);
  const base = {
    artifact: { type: 'dashboard', name: dashboard.name },
    ref: { type: 'dashboard', name: dashboard.name, member: widget.id },
    draft: dashboard.draft,
  };
  const who = `Widget "${widget.id}" of dashboard "${dashboard.name}"`;
  const chartTypes = Object.keys(registry.widgets.types);

  if (!entry) {
    const winner = clearWinner(type, chartTypes);
    issues.push(
      makeIssue({
        code: 'unknown_widget_type',
        ...base,
        message: `${who} has type "${type}", which is not a chart type: the dashboard has no component for it and shows a red "Unknown component type" box in its place.`,
        fix: `Set the type of widget "${widget.id}" to one of: ${chartTypes.join(', ')}.`,
        path: at('type'),
        suggestions: didYouMean(type, chartTypes),
        ...(winner ? { patch: [{ op: 'replace' as const, path: at('type'), value: winner }] } : {}),
      }),
    );
    return { schema, issues };
  }
  if (!isRegistered(registry, entry.component)) {
    issues.push(
      makeIssue({
        code: 'unknown_component',
        ...base,
        message: `${who} of type "${type}" translates to component "${entry.component}", which the ${registry.name} component registry does not register, so the dashboard shows a red "Unknown component type" box.`,
        fix: `Use a chart type whose component is registered, or register "${entry.component}" in the ${registry.name} registry.`,
        path: at('type'),
      }),
    );
    return { schema, issues };
  }

  const dims = def.dimensions ?? [];
  const values = def.values ?? [];
  const problem = shapeProblem(shapeOf(registry, entry.component, entry.variant), dims.length, values.length);
  if (problem) {
    const declared = (names: Iterable<string>) => (dataset ? ` (dataset "${dataset.name}" has: ${[...names].join(', ') || 'none'})` : '');
    const want = describeArity(problem.arity);
    const part = problem.part === 'columns' ? 'dimensions and measures together' : problem.part;
    const tooFew = problem.count < (problem.arity.min ?? 0);
    const fix =
      problem.part === 'dimensions'
        ? tooFew
          ? `Add a dimension to widget "${widget.id}"${declared(dataset?.dimensions.keys() ?? [])}, or use a metric widget.`
          : `Keep ${want} dimension(s) in widget "${widget.id}", or use a bar or table widget.`
        : problem.part === 'measures'
          ? tooFew
            ? `Add a measure to the values of widget "${widget.id}"${declared(dataset?.measures.keys() ?? [])}.`
            : `Keep ${want} value(s) in widget "${widget.id}", or use a bar or table widget.`
          : `Select at least one dimension or measure in widget "${widget.id}".`;
    issues.push(
      makeIssue({
        code: 'unsatisfiable_query_shape',
        ...base,
        message: `${who} is a ${type} with ${problem.count} ${part}, but a ${type} shows ${want} ${part}: it renders as an empty widget.`,
        fix,
        path: problem.part === 'dimensions' ? at('dimensions') : problem.part === 'measures' ? at('values') : at(),
      }),
    );
  }
  if (entry.warnCountOnly && dims.length === 0 && values.length > 0 && dataset) {
    const measures = values.map((v) => dataset.measures.get(v));
    if (measures.every((m) => m !== undefined && m.aggregate === 'count' && !m.derived)) {
      issues.push(
        makeIssue({
          code: 'count_only_table',
          ...base,
          message: `${who} is a ${type} that selects only count measures (${values.join(', ')}) and no dimension, so it shows a single row with the totals instead of a list of records.`,
          fix: `Add a dimension of dataset "${dataset.name}" to widget "${widget.id}" (it has: ${[...dataset.dimensions.keys()].join(', ') || 'none'}), or make it a metric widget.`,
          path: at('dimensions'),
        }),
      );
    }
  }
  return { schema, issues };
}
