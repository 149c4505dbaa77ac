import { buildGraph } from '@bvl/metadata';
import { createDataEngine, createProbeEngine, type PackageScope, type PlatformContext, readOverlay, type SeedApplied } from '@bvl/platform';
import { type ProbeEngine, type ProbeReport, runProbes } from '@bvl/runtime-probes';
import { type RowSource, sweepPublished } from './dom-sweep.ts';
import type { Evidence, SeedEvidence } from './evidence.ts';
import { summarizeGraph } from './summarize-graph.ts';

/** What {@link collectEvidence} needs besides the platform: the package and what the caller knows. */
export interface CollectEvidenceInput extends PackageScope {
  /** Repair rounds the build used (the runner knows; absent makes `rounds_at_most` fail as unknown). */
  readonly rounds?: number;
  /** The environment seeds were applied for (default `dev`). */
  readonly env?: string;
}

/** The evidence, plus the full probe report (messages and all) for a caller that stores issues. */
export interface CollectedEvidence {
  readonly evidence: Evidence;
  readonly probes: ProbeReport;
}

function seedEvidence(s: SeedApplied): SeedEvidence {
  return { success: s.success, inserted: s.inserted, updated: s.updated, skipped: s.skipped, errors: s.errors.length + s.errorsOmitted };
}

/**
 * The I/O shell of grading: reads what a published package left behind and gathers the evidence
 * `gradeAssertions` grades. The tenant's published graph (from the store), whether the package's
 * last publish went through the gate and its seed report (the publish log), the L3 probes on it,
 * the row count of every declared object, and the DOM sweep of every view and dashboard with its
 * real rows. Reads only. A package that never published yields `published: false` and an empty app.
 */
export async function collectEvidence(platform: PlatformContext, input: CollectEvidenceInput): Promise<CollectedEvidence> {
  const log = await platform.db
    .selectFrom('bvl.publish_log')
    .select(['outcome', 'seed_applied'])
    .where('tenant_id', '=', input.tenant)
    .where('package', '=', input.package)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const overlay = await readOverlay(platform, { tenant: input.tenant, package: input.package });
  const { graph } = buildGraph(overlay.published);
  const seedApplied = (log?.seed_applied ?? undefined) as SeedApplied | undefined;

  const engine: ProbeEngine = createProbeEngine(platform, { tenant: input.tenant, graph });
  const probes = await runProbes({ engine, graph, seedApplied, ...(input.env ? { env: input.env } : {}) });
  const rowCounts: Record<string, number> = {};
  for (const o of [...graph.objects.values()].filter((o) => !o.platform).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const n = await engine.countRows(o.name);
    rowCounts[o.name] = n.ok ? n.value : 0;
  }
  const data = createDataEngine(platform, { tenant: input.tenant, graph });
  const source: RowSource = {
    readView: (object, read) => data.find(object, read),
    queryDataset: (dataset, selection) => data.queryDataset(dataset, selection),
  };
  const dom = await sweepPublished(graph, source);

  const evidence: Evidence = {
    published: log?.outcome === 'published',
    ...(input.rounds !== undefined ? { rounds: input.rounds } : {}),
    app: summarizeGraph(graph),
    rowCounts,
    ...(seedApplied ? { seedApplied: seedEvidence(seedApplied) } : {}),
    probes: {
      issues: probes.issues.map((i) => ({
        code: i.code,
        severity: i.severity,
        artifact: { type: i.artifact.type, name: i.artifact.name },
        ...(i.ref?.member !== undefined ? { member: i.ref.member } : {}),
      })),
      checked: probes.checked,
      total: probes.total,
    },
    dom,
  };
  return { evidence, probes };
}
