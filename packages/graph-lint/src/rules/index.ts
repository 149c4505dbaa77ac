import type { Rule } from '../define-rule.ts';
import chartFieldsSelected from './chart-fields-selected.ts';
import dashboardDateDefaults from './dashboard-date-defaults.ts';
import dashboardFilterFieldsExist from './dashboard-filter-fields-exist.ts';
import dashboardFilterObjectsExist from './dashboard-filter-objects-exist.ts';
import datasetFieldsExist from './dataset-fields-exist.ts';
import datasetObjectExists from './dataset-object-exists.ts';
import dateFieldsAreDates from './date-fields-are-dates.ts';
import datePresetComparands from './date-preset-comparands.ts';
import fieldDefaultContract from './field-default-contract.ts';
import fieldOptionsValid from './field-options-valid.ts';
import formulaExpressionsResolve from './formula-expressions-resolve.ts';
import formulaFieldUsage from './formula-field-usage.ts';
import kanbanGroupFieldValid from './kanban-group-field-valid.ts';
import listChartBindings from './list-chart-bindings.ts';
import listChartConfigValid from './list-chart-config-valid.ts';
import lookupReferenceExists from './lookup-reference-exists.ts';
import navTargetExists from './nav-target-exists.ts';
import objectFieldsExist from './object-fields-exist.ts';
import reportBindingsResolve from './report-bindings-resolve.ts';
import rollupSummaryValid from './rollup-summary-valid.ts';
import securityReferencesResolve from './security-references-resolve.ts';
import seedDuplicateKeys from './seed-duplicate-keys.ts';
import seedFieldsExist from './seed-fields-exist.ts';
import seedInsertMode from './seed-insert-mode.ts';
import seedObjectExists from './seed-object-exists.ts';
import seedReferenceResolves from './seed-reference-resolves.ts';
import seedValueContract from './seed-value-contract.ts';
import seedValueInOptions from './seed-value-in-options.ts';
import specRefusals from './spec-refusals.ts';
import viewFieldsExist from './view-fields-exist.ts';
import viewFilterOperatorsKnown from './view-filter-operators-known.ts';
import viewObjectExists from './view-object-exists.ts';
import widgetDatasetExists from './widget-dataset-exists.ts';
import widgetDimensionExists from './widget-dimension-exists.ts';
import widgetMeasureExists from './widget-measure-exists.ts';

/** Every L1 rule, in file-name order. A meta-test keeps this list, the files and their tests in step. */
export const RULES: readonly Rule[] = [
  chartFieldsSelected,
  dashboardDateDefaults,
  dashboardFilterFieldsExist,
  dashboardFilterObjectsExist,
  datasetFieldsExist,
  datasetObjectExists,
  dateFieldsAreDates,
  datePresetComparands,
  fieldDefaultContract,
  fieldOptionsValid,
  formulaExpressionsResolve,
  formulaFieldUsage,
  kanbanGroupFieldValid,
  listChartBindings,
  listChartConfigValid,
  lookupReferenceExists,
  navTargetExists,
  objectFieldsExist,
  reportBindingsResolve,
  rollupSummaryValid,
  securityReferencesResolve,
  seedDuplicateKeys,
  seedFieldsExist,
  seedInsertMode,
  seedObjectExists,
  seedReferenceResolves,
  seedValueContract,
  seedValueInOptions,
  specRefusals,
  viewFieldsExist,
  viewFilterOperatorsKnown,
  viewObjectExists,
  widgetDatasetExists,
  widgetDimensionExists,
  widgetMeasureExists,
];
