import { type BuildIssue, makeIssue, sortIssues } from '@bvl/build-issue';
import { type DatasetNode, type Graph, isUnderRefusal, mayBeHidden, pointer, type SpecRefusal, viewRefusals, widgetRefusals } from '@bvl/metadata';
import { checkInertFields } from './check-inert-fields.ts';
import { viewIssues } from './check-view.ts';
import { widgetIssues } from './check-widget.ts';
import { problemIssue } from './compile-dataset.ts';
import type { ComponentRegistry } from './component-registry.ts';
import { planDataset } from './dataset-planner.ts';
import { DEFAULT_REGISTRY } from './renderer-profiles.ts';
import { forgetResolvedFields } from './resolve-field-of.ts';
import { widgetQueryOptions } from './widget-query-options.ts';

/** Options for {@link checkRender}. */
export interface CheckRenderOptions {
  /** The renderer's component registry (default objectui's). */
  readonly registry?: ComponentRegistry;
  /** Postgres schema the datasets are compiled against (only affects the SQL text). */
  readonly schema?: string;
}

/** L2's verdict on a graph, and how much it looked at. */
export interface RenderCheck {
  readonly issues: BuildIssue[];
  readonly checked: {
    /** Views and widgets translated to component schemas. */
    readonly schemas: number;
    /** Datasets compiled to SQL, plus the widget selections with a filter checked by the same compiler. */
    readonly compiledDatasets: number;
  };
}

/**
 * L2, the render contract, over a whole graph: every view and widget translates to a registered
 * component with its bindings and a query shape it can show; every dataset compiles to SQL, and
 * so does every widget's selection of it; no field is inert. Artifacts that failed their schema
 * are skipped (L1 reports them), as are problems L1 owns: a widget's missing dataset, a widget's
 * unknown measure or dimension, a dataset's missing base object or unknown base field. The
 * renderer profile judges only what the graph's target spec accepts: a view or widget whose type
 * the spec refuses is not translated, and no render issue is reported at or under a path the spec
 * refuses (L1's spec-refusals reports it, as an error). Pure and total; issues sorted.
 */
export function checkRender(graph: Graph, options: CheckRenderOptions = {}): RenderCheck {
  try {
    return check(graph, options);
  } finally {
    forgetResolvedFields();
  }
}

function check(graph: Graph, options: CheckRenderOptions): RenderCheck {
  const registry = options.registry ?? DEFAULT_REGISTRY;
  const compileOptions = options.schema === undefined ? undefined : { schema: options.schema };
  const issues: BuildIssue[] = [];
  let schemas = 0;
  let compiledDatasets = 0;

  for (const view of graph.views.values()) {
    if (view.invalid) continue;
    const refused = pathsOf(viewRefusals(view, graph.spec));
    if (refused.includes('/type')) continue;
    issues.push(...accepted(viewIssues(view, graph, registry), refused));
    schemas++;
  }

  /** Whether a dataset can be compiled at all: valid, with an existing base object (else L1's dangling_object). */
  const compilable = (d: DatasetNode | undefined): d is DatasetNode => d !== undefined && !d.invalid && (d.object === undefined || graph.objects.has(d.object));

  for (const dashboard of graph.dashboards.values()) {
    if (dashboard.invalid) continue;
    for (const widget of dashboard.widgets) {
      // Hidden by ObjectStack unless its requiresObject is registered: nothing a user is sure to see.
      if (mayBeHidden(graph.objects, widget.def.requiresObject)) continue;
      const named = widget.def.dataset === undefined ? undefined : graph.datasets.get(widget.def.dataset);
      const dataset = named && !named.invalid ? named : undefined;
      const refused = pathsOf(widgetRefusals(widget, dashboard, graph.spec));
      if (refused.length === 0 || !refused.includes(pointer('widgets', widget.index, 'type'))) {
        issues.push(...accepted(widgetIssues(widget, dataset, dashboard, registry), refused));
        schemas++;
      }
      // Without a filter or query options, a widget's selection is a subset of its dataset's (unknown
      // values and dimensions are L1's unknown_measure/unknown_dimension), so compiling the dataset covers it.
      const queryOptions = widget.def.options === undefined ? NO_QUERY_OPTIONS : widgetQueryOptions(widget.def);
      if (
        (widget.def.filter === undefined && (queryOptions === NO_QUERY_OPTIONS || Object.keys(queryOptions).length === 0)) ||
        !compilable(dataset) ||
        dataset.object === undefined
      )
        continue;
      const selection = {
        measures: (widget.def.values ?? []).filter((v) => dataset.measures.has(v)),
        dimensions: (widget.def.dimensions ?? []).filter((d) => dataset.dimensions.has(d)),
        ...(widget.def.filter !== undefined ? { filter: widget.def.filter } : {}),
        ...queryOptions,
      };
      const who = `The filter of widget "${widget.id}" of dashboard "${dashboard.name}" (on dataset "${dataset.name}")`;
      const plan = planDataset(dataset, graph, selection, compileOptions, who);
      compiledDatasets++;
      // The dataset's own problems are reported on the dataset: only the widget's filter (and a date
      // bucket its options ask of a dimension that cannot take one) is news here.
      for (const p of plan.problems) {
        if (p.origin === 'dataset') continue;
        if (p.origin === 'selection' && queryOptions.dateGranularity === undefined) continue;
        issues.push(
          makeIssue({
            code: 'dataset_compile_error',
            artifact: { type: 'dashboard', name: dashboard.name },
            ref: { type: 'dashboard', name: dashboard.name, member: widget.id },
            message: p.message,
            fix: p.fix,
            path:
              p.origin === 'selection-filter'
                ? pointer('widgets', widget.index, 'filter', ...p.at)
                : pointer('widgets', widget.index, 'options', 'dateGranularity'),
            draft: dashboard.draft,
            ...(p.suggestions?.length ? { suggestions: p.suggestions } : {}),
          }),
        );
      }
    }
  }

  for (const dataset of graph.datasets.values()) {
    if (!compilable(dataset)) continue;
    const plan = planDataset(dataset, graph, undefined, compileOptions);
    compiledDatasets++;
    // A base-field typo is L1's unknown_field at the same path: one defect, one issue.
    issues.push(...plan.problems.filter((p) => !p.reportedByL1).map((p) => problemIssue(dataset, p)));
  }

  for (const object of graph.objects.values()) issues.push(...checkInertFields(object));

  return { issues: sortIssues(issues), checked: { schemas, compiledDatasets } };
}

const NONE: readonly string[] = Object.freeze([]);
/** widgetQueryOptions of a widget without `options`. */
const NO_QUERY_OPTIONS: ReturnType<typeof widgetQueryOptions> = Object.freeze({});
const pathsOf = (refusals: readonly SpecRefusal[]): readonly string[] => (refusals.length === 0 ? NONE : refusals.map((r) => r.path));

/** The issues not at or under a path the spec refuses. */
function accepted(issues: readonly BuildIssue[], refused: readonly string[]): readonly BuildIssue[] {
  return refused.length === 0 ? issues : issues.filter((i) => !refused.some((r) => isUnderRefusal(i.path ?? '', r)));
}
