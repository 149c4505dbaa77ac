import type { IssueCode } from './catalogue.ts';

/** What a code means for the person or agent who meets it: `bvl explain`, SARIF rule help, docs/rules.md. */
export interface RuleDoc {
  /** What the finding says, in one or two sentences. */
  readonly meaning: string;
  /** What goes wrong in the running app when it is left in. */
  readonly why: string;
  /** A small piece of metadata that has the defect (JSON, as it is written in a stack or artifact file). */
  readonly example: string;
  /** How to fix it. */
  readonly fix: string;
}

/**
 * Per-code documentation, keyed by catalogue code (every code has an entry: a test and the
 * `satisfies` below keep them in step). Written for the app's author, in ObjectStack's terms.
 */
export const RULE_DOCS = {
  invalid_artifact: {
    meaning:
      'An artifact does not have the shape ObjectStack expects: a required key is missing, a value has the wrong type, a name is not snake_case, a key is repeated in one JSON object (JSON keeps only the last: two "objects" keys in a stack drop every object of the first) or is named "__proto__" (no JavaScript record holds it), or the file is not JSON at all. Also what the target spec (`--spec`, default objectstack-17.4) refuses by name, whatever a renderer would draw: a view or widget type outside its closed enums (a list view of `"type": "list"`, a `"stacked-bar"` widget), a retired key (`striped`, a widget\'s `actionUrl`), a kanban block without `groupByField`; the message names the spec rule.',
    why: 'ObjectStack refuses or misreads the artifact when it loads the stack, so what it describes never appears; references to it from elsewhere may still resolve and hide the gap.',
    example: '{ "name": "Expense Report", "fields": { "amount": { "type": 12 } } }',
    fix: 'Correct the value at the reported path (the message says what was expected). Names that become tables or columns must be snake_case.',
  },
  duplicate_artifact: {
    meaning: 'Two artifacts of the same type share one name (or two widgets of one dashboard share an id).',
    why: 'Only one of them is used; the other silently disappears, with whatever it defined.',
    example: '"dashboards": [ { "name": "spending", … }, { "name": "spending", … } ]',
    fix: 'Rename one of the two, or merge them into one artifact.',
  },
  dangling_object: {
    meaning: 'A view, dataset, seed or dashboard filter names an object that the stack does not define (or names none).',
    why: 'The view has nothing to read, the dataset nothing to query, the seed no table to write into: the page or widget is empty or fails.',
    example: '{ "type": "grid", "data": { "provider": "object", "object": "expnse" } }',
    fix: 'Point it at an existing object (the message lists them and suggests the closest), or define the missing object.',
  },
  dangling_reference: {
    meaning: 'A lookup, master_detail, tree or user field references an object that does not exist.',
    why: 'The field has no target table: its picker is empty and the foreign key cannot be created or followed.',
    example: '"category": { "type": "lookup", "reference": "exp_categroy" }',
    fix: 'Set `reference` to an existing object name, or define that object.',
  },
  unknown_field: {
    meaning:
      "Something names a field its object does not have: a view's columns, filter, sort or form sections, a dataset's fields, a seed record's keys, or an object's own nameField/searchableFields.",
    why: 'The column shows empty, the filter or sort is ignored or fails on the database, the seed value is dropped.',
    example: '{ "type": "grid", "data": { "object": "exp_expense" }, "columns": ["titel", "amount"] }',
    fix: 'Use the field name the object declares (the message suggests the closest), or add the field to the object.',
  },
  dangling_dataset: {
    meaning: 'A dashboard widget (or a list view chart) names a dataset that does not exist, or names no dataset at all.',
    why: 'The widget has no query: it renders empty or as an error box.',
    example: '{ "id": "budget_left", "type": "metric", "dataset": "exp_budget", "values": ["remaining"] }',
    fix: 'Point `dataset` at an existing dataset, or define the dataset with the measures the widget asks for.',
  },
  unknown_measure: {
    meaning: "A widget's `values[]` names a measure its dataset does not declare.",
    why: 'The query has no such aggregate: the widget shows nothing or fails.',
    example: '{ "id": "total", "type": "metric", "dataset": "exp_expense_metrics", "values": ["amount"] }',
    fix: 'Use a measure the dataset declares (the message lists them), or add the measure to the dataset.',
  },
  unknown_dimension: {
    meaning: "A widget's `dimensions[]` names a dimension its dataset does not declare.",
    why: 'The query cannot group by it: the chart has no categories or fails.',
    example: '{ "id": "by_status", "type": "bar", "dataset": "exp_expense_metrics", "dimensions": ["state"], "values": ["expense_count"] }',
    fix: 'Use a dimension the dataset declares, or add the dimension to the dataset.',
  },
  chart_field_unknown: {
    meaning: "A chart's axis or series names something that is not among the widget's selected dimensions and measures.",
    why: 'The chart plots an axis with no data: bars or lines are missing.',
    example: '"dimensions": ["status"], "values": ["expense_count"], "chartConfig": { "xAxis": { "field": "category" } }',
    fix: "Name one of the widget's dimensions or measures on the axis, or select the field in the widget.",
  },
  dashboard_filter_field_unknown: {
    meaning: "A dashboard date range or global filter targets a field that a receiving widget's dataset object does not have.",
    why: 'The filter fails or is ignored on that widget, so it shows unfiltered (wrong) numbers next to filtered ones.',
    example: '"dateRange": { "field": "spent_on" }  // while a widget reads an object without spent_on',
    fix: 'Set `filterBindings` on the widget (a field it has, or false to opt out), or filter on a field every receiving object has.',
  },
  kanban_group_field_invalid: {
    meaning:
      "A kanban view's `groupByField` names a missing field, or a field that cannot form columns (not select, multiselect, radio, boolean, lookup, master_detail or user).",
    why: 'The board has no columns to sort cards into: it renders empty or as one lane.',
    example: '{ "type": "kanban", "kanban": { "groupByField": "amount" } }',
    fix: 'Group by a select-like or lookup field of the object.',
  },
  dangling_nav_target: {
    meaning: 'An app navigation item opens an object, view, dashboard, report or page that does not exist (at any depth of the menu).',
    why: 'The menu entry leads to a "not found" page.',
    example: '{ "id": "nav_dash", "type": "dashboard", "label": "Spending", "dashboardName": "exp_spend" }',
    fix: 'Point the item at an existing target (the message suggests the closest), or create the target.',
  },
  unresolved_seed_reference: {
    meaning: "A seed record's lookup value matches no record of the referenced object's seed by its natural key (`externalId`, else `name`).",
    why: 'The reference cannot be resolved when the seed is applied: the record is written without it, or not at all.',
    example: '{ "object": "exp_expense", "records": [ { "title": "Taxi", "category": "Travl" } ] }',
    fix: "Use the natural key of an existing record of the referenced object's seed, or add that record.",
  },
  formula_parse_error: {
    meaning:
      "A formula field's `expression`, a validation rule's `condition` or a sharing rule's `condition` is not a well-formed CEL expression; the message gives the line and column.",
    why: 'ObjectStack cannot compile it: the formula column is empty on every record, the validation never runs, the sharing rule shares nothing.',
    example: '"margin": { "type": "formula", "expression": { "dialect": "cel", "source": "record.price - (record.cost" } }',
    fix: 'Correct the expression at the position named (balance brackets and quotes, use `record.<field>` for fields).',
  },
  rollup_not_related: {
    meaning:
      'A summary (roll-up) field aggregates records of an object that has no lookup or master_detail field pointing back at the object the summary lives on.',
    why: 'There is no relationship to group the child records by, so the summary cannot be computed and stays empty.',
    example: '"line_total": { "type": "summary", "summaryOperations": { "object": "crm_note", "field": "amount", "function": "sum" } }',
    fix: 'Summarize the child object that has a master_detail (or lookup) to this object, or add that relationship field to the child.',
  },
  seed_value_not_in_options: {
    meaning: "A seed value for a select, multiselect or radio field is not one of the field's option values.",
    why: 'The record carries a value the UI cannot show or filter on; the badge or column is blank.',
    example: '{ "title": "Taxi", "status": "Approved" }  // options: draft, submitted, approved',
    fix: 'Use one of the option values (they are case-sensitive), or add the option to the field.',
  },
  seed_insert_mode_replay: {
    meaning: 'A seed uses `mode: "insert"`.',
    why: 'Seeds are applied again on every publish; insert mode adds the same rows again each time, so counts and dashboards drift.',
    example: '{ "object": "exp_category", "mode": "insert", "records": [ … ] }',
    fix: 'Use "upsert" (the default) with an `externalId`, or "ignore".',
  },
  typeless_schema: {
    meaning:
      'A view\'s type is one the spec accepts but the renderer has no case for (for example `"type": "page"` on objectui-2026-02), so the component schema it becomes has no type. A type the spec refuses (`"type": "list"`) is `invalid_artifact` instead.',
    why: 'The page shows a red "Unknown component type" box instead of the records.',
    example: '{ "name": "exp_expense.recent", "viewKind": "list", "config": { "type": "page", "columns": ["title"] } }',
    fix: 'Set the view type to one of the list view types the renderer draws (grid, kanban, calendar, …) or form view types.',
  },
  unknown_component: {
    meaning: 'The view or widget translates to a component type that is not registered in the renderer.',
    why: 'The page shows a red "Unknown component type" box.',
    example: '{ "type": "map", "data": { "object": "exp_expense" } }  // with no map component registered',
    fix: 'Use a view or widget type whose component is registered, or register the component.',
  },
  layout_without_binding: {
    meaning: 'A kanban, calendar, timeline or gantt view lacks its config block (`kanban`, `calendar`, …) that names the fields it lays out by.',
    why: 'The renderer falls back to literal field names such as "status" or "due_date"; on an object without them the view is empty.',
    example: '{ "type": "kanban", "data": { "object": "exp_expense" } }',
    fix: 'Add the block, e.g. `"kanban": { "groupByField": "status" }` with a field the object has.',
  },
  unknown_widget_type: {
    meaning: 'A dashboard widget has a type the spec accepts but the renderer does not know (a type the spec refuses is `invalid_artifact`).',
    why: 'The widget renders as an error box.',
    example: '{ "id": "total", "type": "counter", "dataset": "exp_expense_metrics", "values": ["total_amount"] }',
    fix: 'Use a known widget type (metric, bar, line, pie, table, …; the message lists them).',
  },
  dataset_compile_error: {
    meaning:
      "The dataset, or a widget's selection of it, does not compile to SQL: a missing include relationship, an undeclared dotted path, more than three hops, a join across datasources, an unknown field or a derived-measure cycle.",
    why: 'Every widget on the dataset fails to query.',
    example: '{ "name": "metrics", "object": "exp_expense", "dimensions": [ { "name": "cat", "field": "category.title" } ] }  // no include for category',
    fix: 'Declare the include (relationship) the dotted path walks, or correct the field; the message names the exact step that fails.',
  },
  unsatisfiable_query_shape: {
    meaning:
      "The widget's dimensions and measures do not fit its component (a metric with a dimension, a pie with two measures, a chart with no dimension, …).",
    why: 'The component cannot draw the result: it is empty, or shows one meaningless value.',
    example: '{ "id": "share", "type": "pie", "dataset": "metrics", "values": ["total", "count"] }',
    fix: 'Select the number of dimensions and measures the widget type takes, or change the widget type.',
  },
  count_only_table: {
    meaning: 'A table or pivot widget selects only count measures and no dimension.',
    why: 'It shows a single row with one number, which is rarely what a table is for.',
    example: '{ "id": "all", "type": "table", "dataset": "metrics", "values": ["expense_count"] }',
    fix: 'Add a dimension to group by, or use a metric widget for a single number.',
  },
  inert_field: {
    meaning:
      'A field passes the schema but does nothing: a select or radio without options, a lookup without reference, a formula without expression, a summary without operations.',
    why: 'The form shows an empty picker or a blank value; nothing can be entered or computed.',
    example: '"status": { "type": "select" }',
    fix: 'Give the field what its type needs (options, reference, expression, operations), or change its type.',
  },
  seed_value_dropped: {
    meaning:
      'The publish wrote a seed record but left one of its values out: a lookup value that matched no row of the target object (a user that does not exist, a misspelt external id), or a key the object has no field for.',
    why: 'The row exists, so counts look right, but the relationship or value is missing: related lists, roll-ups and charts grouped by it are wrong.',
    example: '{ "object": "todo_task", "records": [ { "subject": "Call", "owner": "nobody@example.com" } ] }',
    fix: 'Name an existing record (its natural key or id) — seed the target first, sys_user included — or leave the value out; then publish again.',
  },
  seed_not_applied: {
    meaning: 'A seeded object has no rows after publish.',
    why: 'Every list and dashboard over the object is empty, although the stack says it has data.',
    example: '{ "object": "exp_expense", "records": [ { "title": "Taxi", "amount": "12,50" } ] }',
    fix: 'Correct the records the publish reported (the message quotes the database error per record), then publish again.',
  },
  row_count_mismatch: {
    meaning: 'A seeded object has fewer rows after publish than its seed has records.',
    why: 'Part of the data is missing, so counts and charts are wrong.',
    example: 'a seed with 10 records of which 3 fail to insert',
    fix: 'Correct the records that failed (the publish report lists them), then publish again.',
  },
  view_read_failed: {
    meaning: "The view's first-page read fails on the database.",
    why: 'The page shows an error instead of records.',
    example: '{ "type": "grid", "sort": [ { "field": "amount" } ] }  // while the table has no amount column',
    fix: 'Fix what the database error names (a missing column, a bad filter value), then publish again.',
  },
  empty_query: {
    meaning: "A widget's real query returns no rows while its base object has rows.",
    why: 'The widget renders empty on a populated app, usually because of a filter that matches nothing.',
    example: '{ "id": "archived", "type": "bar", "filter": { "status": "archived" } }  // no record is archived',
    fix: 'Correct the filter (the message shows the SQL and its parameters), or seed records it should find.',
  },
  widget_query_failed: {
    meaning: "A widget's real query fails on the database.",
    why: 'The widget shows an error.',
    example: 'a dataset measure over a text column that holds non-numbers',
    fix: 'Fix what the database error names, then publish again.',
  },
  probes_unavailable: {
    meaning: 'A whole plane of runtime checks (seeds, views or widgets) could not run.',
    why: 'Nothing is known about that part of the running app; "no issues" there means "not checked".',
    example: 'the database refused the read-only probe transactions',
    fix: 'Fix the cause the message names (often the database connection), then publish or probe again.',
  },
  unknown_display_field: {
    meaning:
      "An object's nameField or stageField, or a form section, names a field the object does not have (a dangling highlightFields entry is unknown_field: ObjectStack's lint refuses it).",
    why: 'The renderer leaves the field out: records show their id instead of a title, a highlight or stage strip is missing, a form has a gap. ObjectStack itself only warns.',
    example: '{ "name": "exp_expense", "nameField": "titel", "fields": { "title": { "type": "text" } } }',
    fix: 'Name an existing field (the message suggests the closest), or add the field to the object.',
  },
  field_type_mismatch: {
    meaning:
      'A field is used where its type cannot work: a formula field sorted, filtered or summed in a dataset, or a field that is not a date used as a calendar/timeline/gantt date or a dashboard date filter.',
    why: 'The database refuses the query (a formula has no column to sort or sum), or the date logic runs on text: the page fails or shows wrong numbers.',
    example: '{ "type": "calendar", "calendar": { "startDateField": "title", "titleField": "title" } }',
    fix: 'Use a field of the right type (the message names the field type and the candidates), or change the field.',
  },
  duplicate_option_value: {
    meaning: 'A select-like field declares the same option value twice.',
    why: 'Both options store the same value, so records chosen with the second one cannot be told apart from the first; filters and charts merge them.',
    example: '"status": { "type": "select", "options": [ { "label": "Open", "value": "open" }, { "label": "Reopened", "value": "open" } ] }',
    fix: 'Give every option its own value.',
  },
  seed_value_invalid: {
    meaning:
      "A seed record breaks its field's value contract: a value of the wrong type (a list for a single-value lookup or select included), a required field missing, a text over maxLength, or a value repeated on a unique field.",
    why: 'The platform rejects the row when the seed runs, so the record never lands and whatever counts on it is empty.',
    example: '{ "object": "exp_expense", "records": [ { "title": "Taxi", "amount": "twelve" } ] }',
    fix: "Correct the value at the reported path to the field's type and limits, or relax the field.",
  },
  seed_duplicate_key: {
    meaning: 'Several records of one seed share a natural key (its externalId, else name).',
    why: 'Seeds upsert by that key, so the later record overwrites the earlier one: the object gets fewer rows than the seed lists, and row-count expectations are off.',
    example: '{ "object": "exp_category", "records": [ { "name": "Travel" }, { "name": "Travel", "budget": 500 } ] }',
    fix: 'Give every record its own key, or merge the duplicates into one record.',
  },
  view_type_fallback: {
    meaning:
      'The renderer has no component for a view type the spec accepts and draws it as a plain grid instead (newer objectui; a type the spec refuses is `invalid_artifact`).',
    why: 'The page shows records, but not the way the type promised: no board, no calendar, no chart.',
    example: '{ "name": "exp_expense.recent", "viewKind": "list", "config": { "type": "page", "columns": ["title"] } }',
    fix: 'Set the view type to one the renderer draws (grid, kanban, calendar, …); the patch picks the closest.',
  },
  layout_binding_inferred: {
    meaning: 'A view leaves out a binding its layout needs, and the renderer picks one by itself (a kanban lane field detected from the object).',
    why: 'The board works, but its lanes follow whatever field the renderer found first, which may not be the one you meant and can change when fields change.',
    example: '{ "type": "kanban", "columns": ["title"] }',
    fix: 'Add the binding block (for a kanban: `"kanban": { "groupByField": "status", "columns": [...] }`).',
  },
  widget_type_fallback: {
    meaning:
      'The renderer does not draw a widget type the spec accepts and falls back to its closest chart (a bar chart, newer objectui; a type the spec refuses is `invalid_artifact`).',
    why: 'The widget shows data, but not as the type promised.',
    example: '{ "id": "share", "type": "piechart", "dataset": "exp_expense_metrics", "values": ["total_amount"] }',
    fix: 'Use a widget type the renderer draws; the patch picks the closest.',
  },
  query_shape_degraded: {
    meaning:
      'The widget selects more than its component can show, and the renderer drops the rest (a metric shows its first measure only, a pie its first series).',
    why: 'Part of what the widget asks for never appears; readers may think the shown number is the whole story.',
    example: '{ "id": "total", "type": "metric", "dataset": "exp_expense_metrics", "values": ["total_amount", "expense_count"] }',
    fix: 'Select only what the component shows, or pick a component that shows all of it (a table, a bar chart).',
  },
  data_loss_on_republish: {
    meaning:
      "Publishing again would lose or change rows already in a table: a datetime became a date, a multiple lookup became single, a multiselect became a select, text that does not parse as the new type, an option removed while rows still hold it, a mode 'replace' seed that would delete rows none of its records recreates.",
    why: 'The change is silent otherwise: times are cut off, all but one value of a list is dropped, rows keep values no option offers. bvl counts the rows and refuses until you decide.',
    example: '"due_at": { "type": "datetime" }  →  "due_at": { "type": "date" }  (with 120 rows that have a time of day)',
    fix: 'Keep the old type, or publish with allowDataChange (--allow-data-change) to convert the rows as the message describes.',
  },
  data_changed_on_republish: {
    meaning: 'A republish changed rows already in a table, as allowDataChange allowed (the message counts them and says how).',
    why: 'The data is converted, not lost silently, but the rows are not what they were: check that the app still means what it did.',
    example: '"tags": { "type": "multiselect" }  →  "tags": { "type": "select" }  (each row keeps its first tag)',
    fix: 'Nothing to fix if the conversion was intended; otherwise restore the rows from a backup and revert the field.',
  },
  rows_violate_constraint: {
    meaning:
      'Rows already in a table break a constraint the new metadata adds: a unique field with repeated values, or a storage.notNull field with empty values.',
    why: 'The database cannot build the unique index or NOT NULL constraint, so the publish is refused before any table changes.',
    example: '"code": { "type": "text", "unique": true }  (while two rows share the code "A1")',
    fix: 'Clean up the rows the message counts (or drop the constraint), then publish again.',
  },
  publish_exceeds_lock_table: {
    meaning:
      'A publish changes what existing tables hold — a field type, storage.notNull, a unique field, a lookup — in one transaction, so the published state switches all at once; PostgreSQL locks each table it changes until that transaction ends, and the server has room for max_locks_per_transaction × (max_connections + max_prepared_transactions) locks for all its sessions together. A large publish builds a changed column type ahead as a shadow column and only swaps it in (1 lock a table); a type change of a NOT NULL, indexed, defaulted or lookup column, storage.notNull, a unique field or a lookup changed on existing rows stay in the switch (10 to 30 locks a table). This publish would need more than the lock table holds.',
    why: 'Run anyway it fails with "out of shared memory" after minutes of work (and, while it holds the lock table, so do other sessions on the server); nothing would be published. bvl counts the locks first and refuses before anything changes.',
    example:
      'a republish changing the type of an indexed field in each of 2,000 objects: about 44,000 locks, on a server whose lock table holds 6,400 (max_locks_per_transaction 64 × max_connections 100)',
    fix: 'Publish the change in parts (stage the changed objects a few hundred at a time; the message says how many fit), or raise max_locks_per_transaction on the server to the value the message names (postgresql.conf; it takes a restart).',
  },
  seed_replace_deletes_rows: {
    meaning: "A seed with mode 'replace' empties its object's table before writing its records, on every publish.",
    why: 'Rows users added to that object are deleted each time the package is published.',
    example: '{ "object": "crm_stage", "mode": "replace", "records": [ … ] }',
    fix: "Use mode 'upsert' unless the table must hold exactly the seed's records. When rows no record recreates would be deleted, the publish is refused as data_loss_on_republish unless allowDataChange lets it through.",
  },
  publish_interrupted: {
    meaning:
      'The publish committed (its metadata and tables are live), but what follows it — the seeds, the probes, or their record — stopped on a database failure (a lost connection, a full disk).',
    why: 'The app is published but not seeded or not verified at runtime; without this issue the gap would look like success.',
    example: 'seeds: 3 rows inserted; seed "b_big" rolled back, "c_after" not run: Connection terminated unexpectedly',
    fix: 'Fix the database (free disk space, restore the connection) and publish again: the published metadata stays, the seeds and probes run again.',
  },
  seeds_resumed: {
    meaning:
      "The package's previous publish committed but its seeds never finished — the process was killed while seeding, or a database failure stopped them — so this publish applied the package's seeds again, even with no drafts to promote.",
    why: 'Until now the app lacked rows its seeds declare; the report of this publish says what was written now.',
    example:
      'The seeds of package "crm"\'s publish #41 in tenant "acme" never finished; this publish applied the package\'s seeds again: 12 rows inserted, 0 updated, 3 skipped.',
    fix: 'Check the seed report. Under upsert and ignore the replay is idempotent; a mode "insert" seed may have written some rows twice.',
  },
  intent_mismatch: {
    meaning: 'The app, as built, does not match what the user asked for (reserved for the intent review).',
    why: 'A structurally sound app can still miss the point: a missing entity, a dashboard about the wrong thing.',
    example: 'asked for "expenses by project", built a dashboard by category only',
    fix: 'Add or change what the message names.',
  },
} as const satisfies Record<IssueCode, RuleDoc>;

/** Where the rule docs are published; `helpUri` of SARIF rules points into it. */
export const RULE_DOCS_URL = 'https://github.com/bvl-dev/bvl/blob/main/docs/rules.md';

/** The web address of one code's docs. */
export const ruleHelpUri = (code: string): string => `${RULE_DOCS_URL}#${code}`;

/** The docs of a code, or undefined for a code not in the catalogue. */
export function ruleDoc(code: string): RuleDoc | undefined {
  return Object.hasOwn(RULE_DOCS, code) ? (RULE_DOCS as Record<string, RuleDoc>)[code] : undefined;
}
