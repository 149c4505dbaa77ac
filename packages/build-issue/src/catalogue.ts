import type { Layer, Severity } from './build-issue.ts';

/** One catalogue entry: the code's layer, its default severity and what it means. */
export interface CatalogueEntry {
  readonly layer: Layer;
  readonly severity: Severity;
  readonly summary: string;
}

/**
 * The BuildIssue code catalogue (design.md). Codes are stable forever: add codes, never rename one.
 * `severity` is the default; a rule may only emit the severity listed here.
 */
export const CATALOGUE = {
  invalid_artifact: { layer: 'graph', severity: 'error', summary: 'The artifact body fails its schema (or is not JSON); it cannot be used as written.' },
  duplicate_artifact: {
    layer: 'graph',
    severity: 'error',
    summary: 'Two artifacts (or two widgets of one dashboard) share a type and name; one silently shadows the other.',
  },
  dangling_object: { layer: 'graph', severity: 'error', summary: 'A view, dataset or seed names an object that does not exist.' },
  dangling_reference: { layer: 'graph', severity: 'error', summary: 'A lookup/master_detail field references an object that does not exist.' },
  unknown_field: { layer: 'graph', severity: 'error', summary: 'A view, dataset or seed names a field its object does not have.' },
  dangling_dataset: { layer: 'graph', severity: 'error', summary: 'A widget names a dataset that does not exist, or has no dataset at all.' },
  unknown_measure: { layer: 'graph', severity: 'error', summary: "A widget's values[] names a measure its dataset does not declare." },
  unknown_dimension: { layer: 'graph', severity: 'error', summary: "A widget's dimensions[] names a dimension its dataset does not declare." },
  chart_field_unknown: {
    layer: 'graph',
    severity: 'error',
    summary: "A chart axis or series names something that is not among the widget's selected dimensions/measures.",
  },
  dashboard_filter_field_unknown: {
    layer: 'graph',
    severity: 'error',
    summary: "A dashboard dateRange/globalFilters field is missing on a receiving widget's dataset object.",
  },
  kanban_group_field_invalid: { layer: 'graph', severity: 'error', summary: 'A kanban groupByField is missing or not a groupable field type.' },
  dangling_nav_target: {
    layer: 'graph',
    severity: 'error',
    summary: 'An app navigation item targets an object, view, dashboard, report or page that does not exist.',
  },
  unresolved_seed_reference: { layer: 'graph', severity: 'error', summary: "A seed lookup value matches no record's natural key in the target object's seed." },
  seed_value_not_in_options: { layer: 'graph', severity: 'error', summary: "A seed value for a select-like field is not one of the field's option values." },
  seed_insert_mode_replay: { layer: 'graph', severity: 'warning', summary: "A seed uses mode 'insert', so its rows duplicate on every replay." },
  typeless_schema: {
    layer: 'render',
    severity: 'error',
    summary: 'The view translates to a component schema with no type; the renderer shows "Unknown component type".',
  },
  unknown_component: { layer: 'render', severity: 'error', summary: 'The translated component type is not in the component registry.' },
  layout_without_binding: {
    layer: 'render',
    severity: 'error',
    summary: 'A kanban/calendar/timeline/gantt view lacks its config block; the renderer falls back to literal field names.',
  },
  unknown_widget_type: { layer: 'render', severity: 'error', summary: 'A widget type is not a chart type the renderer knows.' },
  dataset_compile_error: { layer: 'render', severity: 'error', summary: 'The dataset does not compile to SQL.' },
  unsatisfiable_query_shape: { layer: 'render', severity: 'error', summary: "The widget's dimensions/measures do not fit what its component can show." },
  count_only_table: { layer: 'render', severity: 'warning', summary: 'A table/pivot selects only count measures and no dimension, so it shows a single row.' },
  inert_field: { layer: 'render', severity: 'error', summary: 'A field is schema-valid but inert (select without options, lookup without reference, …).' },
  seed_not_applied: { layer: 'runtime', severity: 'error', summary: 'A seeded object has no rows after publish.' },
  row_count_mismatch: { layer: 'runtime', severity: 'error', summary: 'A seeded object has fewer rows than its seed has records.' },
  view_read_failed: { layer: 'runtime', severity: 'error', summary: "The view's first-page read fails on the database." },
  empty_query: { layer: 'runtime', severity: 'error', summary: "A widget's real query returns no rows while its base object has rows." },
  widget_query_failed: { layer: 'runtime', severity: 'error', summary: "A widget's real query fails on the database." },
  probes_unavailable: { layer: 'runtime', severity: 'warning', summary: 'A plane could not be probed.' },
  data_loss_on_republish: {
    layer: 'runtime',
    severity: 'error',
    summary: 'A republish would lose or change rows already there (a type or cardinality change, a removed option); refused unless allowDataChange.',
  },
  data_changed_on_republish: { layer: 'runtime', severity: 'warning', summary: 'A republish changed rows already there, as allowDataChange allowed.' },
  rows_violate_constraint: { layer: 'runtime', severity: 'error', summary: 'Rows already there break a new unique or storage.notNull constraint.' },
  seed_replace_deletes_rows: { layer: 'runtime', severity: 'warning', summary: "A mode 'replace' seed deletes every row of its object on each publish." },
  publish_interrupted: {
    layer: 'runtime',
    severity: 'error',
    summary: 'The publish committed, but what follows it (seeds, probes, their record) stopped on a database failure.',
  },
  intent_mismatch: { layer: 'intent', severity: 'warning', summary: "The app does not match the user's stated goal." },
} as const satisfies Record<string, CatalogueEntry>;

/** A code from the catalogue. */
export type IssueCode = keyof typeof CATALOGUE;

/** Whether `code` is in the catalogue. */
export function isCatalogueCode(code: string): code is IssueCode {
  return Object.hasOwn(CATALOGUE, code);
}
