import type { PlatformContext } from '@bvl/platform';
import { type Comparison, compareBatches } from './compare-batches.ts';
import type { RatePoint } from './pass-rate-chart.ts';
import type { EvalReportInput } from './render-eval-report.ts';
import { countAttempts, type EvalBatch, getBatch, listAttempts, listBatches, type StoredAttempt } from './run-eval-store.ts';
import { EvalRunError } from './run-evals.ts';
import { type BatchSummary, passRate, summarizeBatch } from './summarize-batch.ts';

/** A stored batch summarized from its rows. */
export async function summarizeStoredBatch(
  ctx: PlatformContext,
  batch: EvalBatch,
  options: { readonly full?: boolean } = {},
): Promise<{ summary: BatchSummary; attempts: StoredAttempt[] }> {
  const attempts = await listAttempts(ctx, batch, options);
  return { summary: summarizeBatch(batch.plan, batch.epochs, attempts), attempts };
}

/**
 * The batch compared with its baseline: `baseline` when given, else the latest finished batch of
 * the same suite and agent before it. Null when there is none (a first run).
 */
export async function compareWithBaseline(
  ctx: PlatformContext,
  batch: EvalBatch,
  summary: BatchSummary,
  baseline?: number | undefined,
): Promise<Comparison | null> {
  let base: EvalBatch | undefined;
  if (baseline !== undefined) {
    base = await getBatch(ctx, baseline);
    if (!base) throw new EvalRunError(`there is no eval batch ${baseline} to compare with`);
  } else [base] = await listBatches(ctx, { suite: batch.suite, agent: batch.agent, before: batch.id, finishedOnly: true, limit: 1 });
  if (!base) return null;
  const { summary: before } = await summarizeStoredBatch(ctx, base);
  return compareBatches(summary, { batch: base.id, summary: before });
}

/** Batches the report's chart shows by default. */
export const REPORT_HISTORY = 12;

/** The pass rate of each of the last batches of a suite and agent, oldest first, ending with `batch`. */
export async function passRateHistory(ctx: PlatformContext, batch: EvalBatch, limit = REPORT_HISTORY): Promise<RatePoint[]> {
  const earlier = await listBatches(ctx, { suite: batch.suite, agent: batch.agent, before: batch.id + 1, limit });
  const points: RatePoint[] = [];
  for (const b of earlier.reverse()) {
    const { byStatus } = await countAttempts(ctx, b.id);
    points.push({ batch: b.id, passRate: passRate(byStatus), label: b.createdAt.slice(0, 10) });
  }
  return points;
}

/** The latest batch of the store (of an agent, when given), or undefined. */
export async function latestBatch(ctx: PlatformContext, agent?: string): Promise<EvalBatch | undefined> {
  return (await listBatches(ctx, { ...(agent ? { agent } : {}), limit: 1 }))[0];
}

/** Everything the HTML report shows for a batch (the latest when `batch` is absent). */
export async function loadEvalReport(ctx: PlatformContext, options: { readonly batch?: number; readonly baseline?: number } = {}): Promise<EvalReportInput> {
  const batch = options.batch !== undefined ? await getBatch(ctx, options.batch) : await latestBatch(ctx);
  if (!batch)
    throw new EvalRunError(options.batch !== undefined ? `there is no eval batch ${options.batch}` : 'there is no eval batch yet; run bvl eval first');
  const { summary, attempts } = await summarizeStoredBatch(ctx, batch, { full: true });
  const comparison = await compareWithBaseline(ctx, batch, summary, options.baseline);
  return { batch, summary, attempts, history: await passRateHistory(ctx, batch), comparison };
}
