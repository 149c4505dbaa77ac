import { type BuildIssue, makeIssue, sortIssues } from '@bvl/build-issue';
import type { Graph, SeedNode } from '@bvl/metadata';
import { type Carried, carriedReason } from './plan-carry.ts';
import { planProbes } from './plan-probes.ts';
import type { ProbeEngine, ProbeOutcome } from './probe-engine.ts';
import { type Plane, type ProbeReport, type SkippedProbe, sortSkipped, zeroPlanes } from './probe-report.ts';
import { expectedRowsOf, judgeDroppedValues, judgeSeed, type SeedApplyReport, type SeedProbe, type SeedRecordSource } from './seed-probe.ts';
import { judgeView } from './view-probe.ts';
import { judgeWidget } from './widget-probe.ts';

/** Probe queries in flight at once (a pool of this many; PGlite serializes them anyway). */
export const PROBE_CONCURRENCY = 4;
/** Queries one probe run makes at most; artifacts past it are skipped with that reason. */
export const MAX_PROBES = 10_000;
/** Objects named in the one objects-plane warning; the rest are counted. */
const MAX_NAMED = 10;

/** What {@link runProbes} needs. */
export interface RunProbesInput {
  readonly engine: ProbeEngine;
  /** The published graph (what the runtime now serves). */
  readonly graph: Graph;
  /** The publish's seed report, quoted in seed issues so the cause travels with the symptom. */
  readonly seedApplied?: SeedApplyReport | undefined;
  /** The environment seeds were applied for (default `dev`). */
  readonly env?: string;
  /** Only these artifacts are probed (see PlanOptions.scope); absent: the whole graph. */
  readonly scope?: ReadonlyArray<{ readonly type: string; readonly name: string }> | undefined;
  readonly concurrency?: number;
  readonly maxProbes?: number;
  /**
   * What a republish carries over from the previous publish's probes (see planCarry): those
   * probes are not run; they are `skipped` with `carriedFrom` and the reason, and the previous
   * result's issues about them are reported again. Absent: everything in scope is probed.
   */
  readonly carried?: Carried | undefined;
  /**
   * Where a seed's records are read from when they are not held in `def.records` (a stored seed:
   * `stored` set): the rows it must leave are counted over them, part by part. Absent, or
   * undefined for a seed: its `def.records`.
   */
  readonly seedRecords?: ((seed: SeedNode) => SeedRecordSource | undefined) | undefined;
}

/** Maps `items` through `fn` with at most `limit` calls in flight, keeping order. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** A probe never throws: an engine that does becomes a failed outcome carrying the crash. */
async function safe<T>(call: () => Promise<ProbeOutcome<T>>): Promise<ProbeOutcome<T>> {
  try {
    return await call();
  } catch (e) {
    return { ok: false, error: `the probe crashed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function unavailable(plane: Plane, reason: string): BuildIssue {
  return makeIssue({
    code: 'probes_unavailable',
    artifact: { type: 'probe', name: plane },
    message: `The ${plane} plane was not probed: ${reason}. Its artifacts are unverified at runtime, not known to work.`,
    fix: 'Probe with a runtime that implements this plane, or verify these artifacts another way.',
  });
}

/**
 * Runs L3 on a published graph through the engine: counts each object's rows once, judges every
 * seed from them, reads every view's first page, runs every widget's real selection. Reads only
 * (the engine's job: read-only transactions with a timeout), at most `concurrency` at a time and
 * `maxProbes` in all. Never throws; returns issues (sorted) and per-plane counts.
 */
export async function runProbes(input: RunProbesInput): Promise<ProbeReport> {
  const { engine, graph } = input;
  const limit = input.concurrency ?? PROBE_CONCURRENCY;
  const plan = planProbes(graph, { env: input.env ?? 'dev', seedApplied: input.seedApplied, scope: input.scope });
  const issues: BuildIssue[] = [];
  const checked = zeroPlanes();
  const skipped: SkippedProbe[] = [...plan.skipped];
  const unavail: Partial<Record<Plane, string>> = {};
  let budget = input.maxProbes ?? MAX_PROBES;
  const take = <T>(items: readonly T[], toSkip: (item: T) => SkippedProbe): T[] => {
    const kept = items.slice(0, Math.max(0, budget));
    budget -= kept.length;
    for (const item of items.slice(kept.length)) skipped.push(toSkip(item));
    return kept;
  };
  const overBudget = `the run's budget of ${input.maxProbes ?? MAX_PROBES} probe queries was spent`;

  // What a republish carries over is not probed again; an object a probed seed or widget needs is counted anyway.
  const carried = input.carried;
  const isCarried = (type: string, name: string): boolean => carried?.artifacts.has(`${type}\u0000${name}`) === true;
  /** Records a carried probe as skipped; false, so a filter drops it. */
  const carry = (s: Omit<SkippedProbe, 'reason' | 'carriedFrom'>): false => {
    skipped.push({ ...s, reason: carriedReason(carried!.publishId), carriedFrom: carried!.publishId });
    return false;
  };
  const planned = plan.seeds.filter((p) => !isCarried('seed', p.seed.name) || carry({ plane: 'seeds', artifact: { type: 'seed', name: p.seed.name } }));
  // A stored seed's expected rows, over its records read part by part (only for the seeds probed);
  // one whose records cannot be read is skipped, saying why.
  const seedPlan: SeedProbe[] = [];
  for (const p of planned) {
    const source = input.seedRecords?.(p.seed);
    if (!source && p.seed.stored !== undefined)
      // Its records are not in the graph (def.records is empty): counted over nothing, the probe would expect 0 rows.
      skipped.push({
        plane: 'seeds',
        artifact: { type: 'seed', name: p.seed.name },
        reason: 'its records are stored and were not read (no seed reader given)',
      });
    else if (!source) seedPlan.push(p);
    else
      try {
        seedPlan.push({ ...p, expected: await expectedRowsOf(p.seed, source) });
      } catch (e) {
        skipped.push({
          plane: 'seeds',
          artifact: { type: 'seed', name: p.seed.name },
          reason: `its stored records could not be read: ${e instanceof Error ? e.message : String(e)}`,
        });
      }
  }
  const viewPlan = plan.views.filter((p) => !isCarried('view', p.view.name) || carry({ plane: 'views', artifact: { type: 'view', name: p.view.name } }));
  const widgetPlan = plan.widgets.filter(
    (p) =>
      !isCarried('dashboard', p.dashboard.name) || carry({ plane: 'widgets', artifact: { type: 'dashboard', name: p.dashboard.name }, member: p.widget.id }),
  );
  const needed = new Set([...seedPlan.map((p) => p.seed.object), ...widgetPlan.flatMap((p) => (p.dataset.object ? [p.dataset.object] : []))]);
  const objectPlan = plan.objects.filter((o) => !isCarried('object', o) || needed.has(o) || carry({ plane: 'objects', artifact: { type: 'object', name: o } }));
  if (carried) issues.push(...carried.issues);

  const objects = take(objectPlan, (o) => ({ plane: 'objects', artifact: { type: 'object', name: o }, reason: overBudget }));
  const counts = new Map<string, ProbeOutcome<number>>();
  (await pool(objects, limit, (o) => safe(() => engine.countRows(o)))).forEach((c, i) => counts.set(objects[i]!, c));
  checked.objects = objects.length;

  for (const probe of seedPlan) {
    const count = counts.get(probe.seed.object);
    if (!count) {
      skipped.push({ plane: 'seeds', artifact: { type: 'seed', name: probe.seed.name }, reason: overBudget });
      continue;
    }
    checked.seeds++;
    const issue = judgeSeed(probe, count, input.seedApplied);
    if (issue) issues.push(issue);
  }
  issues.push(...judgeDroppedValues(seedPlan, input.seedApplied));

  const readView = engine.readView?.bind(engine);
  if (!readView && viewPlan.length > 0) {
    unavail.views = 'the runtime offers no view reads';
    issues.push(unavailable('views', unavail.views));
    for (const p of viewPlan) skipped.push({ plane: 'views', artifact: { type: 'view', name: p.view.name }, reason: unavail.views });
  }
  const runDataset = engine.runDataset?.bind(engine);
  if (!runDataset && widgetPlan.length > 0) {
    unavail.widgets = 'the runtime has no dataset engine';
    issues.push(unavailable('widgets', unavail.widgets));
    for (const p of widgetPlan)
      skipped.push({ plane: 'widgets', artifact: { type: 'dashboard', name: p.dashboard.name }, member: p.widget.id, reason: unavail.widgets });
  }
  const views = readView ? take(viewPlan, (p) => ({ plane: 'views', artifact: { type: 'view', name: p.view.name }, reason: overBudget })) : [];
  const widgets = runDataset
    ? take(widgetPlan, (p) => ({ plane: 'widgets', artifact: { type: 'dashboard', name: p.dashboard.name }, member: p.widget.id, reason: overBudget }))
    : [];
  type Job = { kind: 'view'; i: number } | { kind: 'widget'; i: number };
  const jobs: Job[] = [...views.map((_, i) => ({ kind: 'view' as const, i })), ...widgets.map((_, i) => ({ kind: 'widget' as const, i }))];
  await pool(jobs, limit, async (job) => {
    if (job.kind === 'view') {
      const p = views[job.i]!;
      const issue = judgeView(p, await safe(() => readView!(p.object, p.read)));
      checked.views++;
      if (issue) issues.push(issue);
    } else {
      const p = widgets[job.i]!;
      const base = p.dataset.object ? counts.get(p.dataset.object) : undefined;
      const issue = judgeWidget(p, await safe(() => runDataset!(p.dataset, p.selection)), base?.ok ? base.value : undefined);
      checked.widgets++;
      if (issue) issues.push(issue);
    }
  });

  // A count failure on an object no seed speaks for would vanish silently: say it once.
  const seeded = new Set(seedPlan.map((s) => s.seed.object));
  const failed = [...counts].filter(([o, c]) => !c.ok && !seeded.has(o)) as Array<[string, { ok: false; error: string }]>;
  if (failed.length > 0) {
    const named = failed.slice(0, MAX_NAMED).map(([o, c]) => `"${o}" (${c.error})`);
    unavail.objects = `${failed.length} object${failed.length === 1 ? '' : 's'} could not be counted: ${named.join(', ')}${failed.length > MAX_NAMED ? `, and ${failed.length - MAX_NAMED} more` : ''}`;
    issues.push(unavailable('objects', unavail.objects));
  }
  return { issues: sortIssues(issues), checked, total: plan.total, skipped: sortSkipped(skipped), unavailable: unavail };
}
