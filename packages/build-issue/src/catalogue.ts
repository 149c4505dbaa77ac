import type { Layer, Severity } from './build-issue.ts';

/**
 * What a person using the published app sees when an issue is left in. It is the input of the
 * severity policy ({@link IMPACT_SEVERITY}), so an entry's severity is never a matter of taste:
 *
 * - `breaks`: the page or its query fails — an error panel, a refused request, the red "Unknown
 *   component type" box, metadata the platform refuses to store.
 * - `refuses`: the renderer declines to draw the artifact and says why (a refusal screen).
 * - `shows-nothing`: the page renders, but empty — no rows, no cards, a blank chart.
 * - `wrong-numbers`: the page shows data that is wrong or incomplete (missing seed rows, a total
 *   that silently drops rows).
 * - `degrades`: the page shows something usable but less than was authored (the first measure of
 *   several, a grid instead of an unknown view type, a lane field the renderer picked itself).
 * - `platform-warns`: ObjectStack itself only warns about it (an advisory lint); the page works.
 * - `unverified`: bvl could not look (a plane it could not probe).
 */
export type Impact = 'breaks' | 'refuses' | 'shows-nothing' | 'wrong-numbers' | 'degrades' | 'platform-warns' | 'unverified';

/**
 * The severity policy: an error when the page breaks, refuses, shows nothing or shows wrong
 * numbers — publishing it would ship something visibly broken; a warning when it degrades, when
 * ObjectStack itself only warns, or when bvl could not tell. Warnings never block publish.
 */
export const IMPACT_SEVERITY = {
  breaks: 'error',
  refuses: 'error',
  'shows-nothing': 'error',
  'wrong-numbers': 'error',
  degrades: 'warning',
  'platform-warns': 'warning',
  unverified: 'warning',
} as const satisfies Record<Impact, Severity>;

/** One catalogue entry: the code's layer, what the user sees, the severity that follows, and what it means. */
export interface CatalogueEntry {
  readonly layer: Layer;
  /** What the user sees when the issue is left in (the policy's input). */
  readonly impact: Impact;
  /** `IMPACT_SEVERITY[impact]`, spelled out so consumers need not apply the policy. */
  readonly severity: Severity;
  readonly summary: string;
}

/** An entry whose severity is the one the policy gives its impact: a mismatch does not compile. */
type PolicyEntry = { [I in Impact]: CatalogueEntry & { readonly impact: I; readonly severity: (typeof IMPACT_SEVERITY)[I] } }[Impact];

/**
 * The BuildIssue code catalogue (design.md). Codes are stable forever: add codes, never rename one.
 * Each entry's severity follows from its impact through {@link IMPACT_SEVERITY}; a rule may only
 * emit the severity listed here, so an outcome that differs in what the user sees (a red box in
 * one renderer, a grid fallback in another) is a different code.
 */
export const CATALOGUE = {
  invalid_artifact: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary:
      "The artifact body fails its schema (or is not JSON), or breaks a rule ObjectStack refuses at save (a view or widget type outside the target spec's enums, a retired key, a kanban without groupByField, an unsupported list-chart type, a bare date preset as a filter comparand, a default outside the options); it cannot be used as written.",
  },
  duplicate_artifact: {
    layer: 'graph',
    impact: 'wrong-numbers',
    severity: 'error',
    summary: 'Two artifacts (or two widgets of one dashboard) share a type and name; one silently shadows the other.',
  },
  dangling_object: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary: 'A view, dataset, seed, roll-up, permission set or sharing rule names an object that does not exist.',
  },
  dangling_reference: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary: 'A lookup/master_detail field references an object that does not exist.',
  },
  unknown_field: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary: 'A view, dataset, seed, formula, roll-up, permission set or sharing rule names a field its object does not have.',
  },
  dangling_dataset: {
    layer: 'graph',
    impact: 'shows-nothing',
    severity: 'error',
    summary: 'A widget names a dataset that does not exist, or has no dataset at all.',
  },
  unknown_display_field: {
    layer: 'graph',
    impact: 'platform-warns',
    severity: 'warning',
    summary: "An object's nameField/stageField or a form section names a field the object lacks; the renderer leaves it out.",
  },
  field_type_mismatch: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary:
      'A field is used where its type cannot work: a formula sorted, filtered or aggregated; a non-date field as a calendar/timeline/gantt date or a dashboard date filter.',
  },
  unknown_measure: { layer: 'graph', impact: 'breaks', severity: 'error', summary: "A widget's values[] names a measure its dataset does not declare." },
  unknown_dimension: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary: "A widget's dimensions[] names a dimension its dataset does not declare.",
  },
  chart_field_unknown: {
    layer: 'graph',
    impact: 'shows-nothing',
    severity: 'error',
    summary: "A chart axis or series names something that is not among the widget's selected dimensions/measures.",
  },
  dashboard_filter_field_unknown: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary: "A dashboard dateRange/globalFilters field is missing on a receiving widget's dataset object.",
  },
  kanban_group_field_invalid: {
    layer: 'graph',
    impact: 'shows-nothing',
    severity: 'error',
    summary: 'A kanban groupByField is missing or not a groupable field type.',
  },
  dangling_nav_target: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary: 'An app navigation item targets an object, view, dashboard, report or page that does not exist.',
  },
  duplicate_option_value: {
    layer: 'graph',
    impact: 'degrades',
    severity: 'warning',
    summary: "A field declares one option value twice; the second option stores the first one's value and can never be told apart.",
  },
  unresolved_seed_reference: {
    layer: 'graph',
    impact: 'wrong-numbers',
    severity: 'error',
    summary: "A seed lookup value matches no record's natural key in the target object's seed.",
  },
  formula_parse_error: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary: 'A formula or CEL expression (a formula field, a validation rule, a sharing rule condition) does not parse.',
  },
  rollup_not_related: {
    layer: 'graph',
    impact: 'breaks',
    severity: 'error',
    summary: "A roll-up summary field summarizes an object that has no lookup/master_detail to the summary's object.",
  },
  seed_value_not_in_options: {
    layer: 'graph',
    impact: 'wrong-numbers',
    severity: 'error',
    summary: "A seed value for a select-like field is not one of the field's option values.",
  },
  seed_value_invalid: {
    layer: 'graph',
    impact: 'wrong-numbers',
    severity: 'error',
    summary:
      "A seed record breaks its field's value contract (wrong type, a required field missing, over maxLength, a unique value repeated); the platform rejects the row.",
  },
  seed_duplicate_key: {
    layer: 'graph',
    impact: 'degrades',
    severity: 'warning',
    summary: 'Records of a seed share a natural key; the later one overwrites the earlier, so the object gets fewer rows than the seed lists.',
  },
  seed_insert_mode_replay: {
    layer: 'graph',
    impact: 'platform-warns',
    severity: 'warning',
    summary: "A seed uses mode 'insert', so its rows duplicate on every replay.",
  },
  typeless_schema: {
    layer: 'render',
    impact: 'breaks',
    severity: 'error',
    summary:
      'The view type is one the spec accepts but the renderer has no case for; its component schema has no type and the renderer shows "Unknown component type".',
  },
  view_type_fallback: {
    layer: 'render',
    impact: 'degrades',
    severity: 'warning',
    summary: 'The renderer draws no component for a view type the spec accepts and falls back to a grid.',
  },
  unknown_component: {
    layer: 'render',
    impact: 'breaks',
    severity: 'error',
    summary: 'The translated component type is not in the component registry.',
  },
  layout_without_binding: {
    layer: 'render',
    impact: 'refuses',
    severity: 'error',
    summary: 'A kanban/calendar/timeline/gantt/map view lacks the binding its component needs; the renderer refuses it or draws it empty.',
  },
  layout_binding_inferred: {
    layer: 'render',
    impact: 'degrades',
    severity: 'warning',
    summary: 'A view omits a binding the renderer then picks by itself (a kanban lane field detected from the object).',
  },
  unknown_widget_type: {
    layer: 'render',
    impact: 'breaks',
    severity: 'error',
    summary: 'A widget type the spec accepts is not a chart type the renderer knows.',
  },
  widget_type_fallback: {
    layer: 'render',
    impact: 'degrades',
    severity: 'warning',
    summary: 'The renderer does not draw a widget type the spec accepts and falls back to its closest chart (a bar chart).',
  },
  dataset_compile_error: { layer: 'render', impact: 'breaks', severity: 'error', summary: 'The dataset does not compile to SQL.' },
  unsatisfiable_query_shape: {
    layer: 'render',
    impact: 'refuses',
    severity: 'error',
    summary: "The widget's dimensions/measures do not fit what its component can show; it refuses or renders empty.",
  },
  query_shape_degraded: {
    layer: 'render',
    impact: 'degrades',
    severity: 'warning',
    summary: 'The widget selects more than its component shows; the renderer drops the rest (e.g. a metric shows its first measure).',
  },
  count_only_table: {
    layer: 'render',
    impact: 'degrades',
    severity: 'warning',
    summary: 'A table/pivot selects only count measures and no dimension, so it shows a single row.',
  },
  inert_field: {
    layer: 'render',
    impact: 'shows-nothing',
    severity: 'error',
    summary: 'A field is schema-valid but inert (select without options, lookup without reference, …).',
  },
  seed_value_dropped: {
    layer: 'runtime',
    impact: 'wrong-numbers',
    severity: 'error',
    summary: 'The publish wrote a seed record without one of its values (a lookup that matched no row, a field the object lacks).',
  },
  seed_not_applied: { layer: 'runtime', impact: 'shows-nothing', severity: 'error', summary: 'A seeded object has no rows after publish.' },
  row_count_mismatch: {
    layer: 'runtime',
    impact: 'wrong-numbers',
    severity: 'error',
    summary: 'A seeded object has fewer rows than its seed has records.',
  },
  view_read_failed: { layer: 'runtime', impact: 'breaks', severity: 'error', summary: "The view's first-page read fails on the database." },
  empty_query: {
    layer: 'runtime',
    impact: 'shows-nothing',
    severity: 'error',
    summary: "A widget's real query returns no rows while its base object has rows.",
  },
  widget_query_failed: { layer: 'runtime', impact: 'breaks', severity: 'error', summary: "A widget's real query fails on the database." },
  probes_unavailable: { layer: 'runtime', impact: 'unverified', severity: 'warning', summary: 'A plane could not be probed.' },
  data_loss_on_republish: {
    layer: 'runtime',
    impact: 'wrong-numbers',
    severity: 'error',
    summary:
      "A republish would lose or change rows already there (a type or cardinality change, a removed option, a mode 'replace' seed deleting rows no record recreates); refused unless allowDataChange.",
  },
  data_changed_on_republish: {
    layer: 'runtime',
    impact: 'degrades',
    severity: 'warning',
    summary: 'A republish changed rows already there, as allowDataChange allowed.',
  },
  rows_violate_constraint: {
    layer: 'runtime',
    impact: 'breaks',
    severity: 'error',
    summary: 'Rows already there break a new unique or storage.notNull constraint.',
  },
  publish_exceeds_lock_table: {
    layer: 'runtime',
    impact: 'breaks',
    severity: 'error',
    summary:
      "A publish would change more existing tables in its one switching transaction than the database server's lock table holds (max_locks_per_transaction); refused before anything changes.",
  },
  seed_replace_deletes_rows: {
    layer: 'runtime',
    impact: 'degrades',
    severity: 'warning',
    summary: "A mode 'replace' seed deletes every row of its object on each publish.",
  },
  publish_interrupted: {
    layer: 'runtime',
    impact: 'breaks',
    severity: 'error',
    summary: 'The publish committed, but what follows it (seeds, probes, their record) stopped on a database failure.',
  },
  seeds_resumed: {
    layer: 'runtime',
    impact: 'degrades',
    severity: 'warning',
    summary:
      "An earlier publish's seeds never finished (the process stopped while seeding, or a database failure stopped them); this publish applied them again.",
  },
  intent_mismatch: { layer: 'intent', impact: 'degrades', severity: 'warning', summary: "The app does not match the user's stated goal." },
} as const satisfies Record<string, PolicyEntry>;

/** A code from the catalogue. */
export type IssueCode = keyof typeof CATALOGUE;

/** Whether `code` is in the catalogue. */
export function isCatalogueCode(code: string): code is IssueCode {
  return Object.hasOwn(CATALOGUE, code);
}
