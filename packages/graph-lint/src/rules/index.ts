import type { Rule } from '../define-rule.ts';
import chartFieldsSelected from './chart-fields-selected.ts';
import dashboardFilterFieldsExist from './dashboard-filter-fields-exist.ts';
import dashboardFilterObjectsExist from './dashboard-filter-objects-exist.ts';
import datasetFieldsExist from './dataset-fields-exist.ts';
import datasetObjectExists from './dataset-object-exists.ts';
import kanbanGroupFieldValid from './kanban-group-field-valid.ts';
import listChartBindings from './list-chart-bindings.ts';
import lookupReferenceExists from './lookup-reference-exists.ts';
import navTargetExists from './nav-target-exists.ts';
import objectFieldsExist from './object-fields-exist.ts';
import seedFieldsExist from './seed-fields-exist.ts';
import seedInsertMode from './seed-insert-mode.ts';
import seedObjectExists from './seed-object-exists.ts';
import seedReferenceResolves from './seed-reference-resolves.ts';
import seedValueInOptions from './seed-value-in-options.ts';
import viewFieldsExist from './view-fields-exist.ts';
import viewFilterOperatorsKnown from './view-filter-operators-known.ts';
import viewObjectExists from './view-object-exists.ts';
import widgetDatasetExists from './widget-dataset-exists.ts';
import widgetDimensionExists from './widget-dimension-exists.ts';
import widgetMeasureExists from './widget-measure-exists.ts';

/** Every L1 rule, in file-name order. A meta-test keeps this list, the files and their tests in step. */
export const RULES: readonly Rule[] = [
  chartFieldsSelected,
  dashboardFilterFieldsExist,
  dashboardFilterObjectsExist,
  datasetFieldsExist,
  datasetObjectExists,
  kanbanGroupFieldValid,
  listChartBindings,
  lookupReferenceExists,
  navTargetExists,
  objectFieldsExist,
  seedFieldsExist,
  seedInsertMode,
  seedObjectExists,
  seedReferenceResolves,
  seedValueInOptions,
  viewFieldsExist,
  viewFilterOperatorsKnown,
  viewObjectExists,
  widgetDatasetExists,
  widgetDimensionExists,
  widgetMeasureExists,
];
