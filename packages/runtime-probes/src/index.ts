export { type Carried, type CarryInput, carriedReason, type PreviousProbes, planCarry } from './plan-carry.ts';
export { type PlanOptions, type ProbePlan, planProbes } from './plan-probes.ts';
export type { DatasetRun, ProbeEngine, ProbeOutcome, ViewRead } from './probe-engine.ts';
export { PLANES, type Plane, type ProbeReport, type SkippedProbe, sortSkipped, zeroPlanes } from './probe-report.ts';
export { MAX_PROBES, PROBE_CONCURRENCY, type RunProbesInput, runProbes } from './run-probes.ts';
export {
  expectedRows,
  expectedRowsOf,
  judgeDroppedValues,
  judgeSeed,
  MAX_QUOTED_SEED_ERRORS,
  planSeedProbes,
  type SeedApplyReport,
  type SeedErrorDetail,
  type SeedProbe,
  type SeedRecordSource,
} from './seed-probe.ts';
export { judgeView, planViewProbes, type ViewProbe, viewRead } from './view-probe.ts';
export { judgeWidget, planWidgetProbes, WIDGET_ROW_LIMIT, type WidgetProbe, widgetSelection } from './widget-probe.ts';
