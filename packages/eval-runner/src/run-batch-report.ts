import type { PlatformContext } from '@bvl/platform';
import { type AttemptTranscript, noTranscripts, type TranscriptReader } from './attempt-transcript.ts';
import { type Comparison, compareBatches, unlikeBatches } from './compare-batches.ts';
import { DEFAULT_PROMPT } from './eval-agent.ts';
import { subjectId } from './eval-subject.ts';
import type { RatePoint } from './pass-rate-chart.ts';
import type { EvalReportInput } from './render-eval-report.ts';
import { countAttempts, type EvalBatch, getBatch, listAttempts, listBatches, loadPlannedCases, type StoredAttempt } from './run-eval-store.ts';
import { EvalRunError } from './run-evals.ts';
import { type BatchSummary, passRate, summarizeBatch } from './summarize-batch.ts';

/** A stored batch summarized from its rows. */
export async function summarizeStoredBatch(
  ctx: PlatformContext,
  batch: EvalBatch,
  options: { readonly full?: boolean } = {},
): Promise<{ summary: BatchSummary; attempts: StoredAttempt[] }> {
  const attempts = await listAttempts(ctx, batch, options);
  return { summary: summarizeBatch(batch, attempts), attempts };
}

/** Earlier batches looked at at most when picking a baseline. */
const BASELINE_LOOKBACK = 50;

/**
 * The batch compared with its baseline, like with like: `baseline` when given (what differs is
 * said in `unlike`, and only the entries both ran are compared), else the latest finished batch of
 * the same suite and defect sets before it that ran at least one of its subjects (agent and
 * model). Null when there is none (a first run).
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
  } else {
    const mine = new Set(batch.subjects.map(subjectId));
    const earlier = await listBatches(ctx, { suite: batch.suite, before: batch.id, finishedOnly: true, limit: BASELINE_LOOKBACK });
    base = earlier.find((b) => (b.defects ?? null) === (batch.defects ?? null) && b.subjects.some((s) => mine.has(subjectId(s))));
  }
  if (!base) return null;
  const { summary: before } = await summarizeStoredBatch(ctx, base);
  return compareBatches(summary, { batch: base.id, summary: before, unlike: unlikeBatches(batch, base) });
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

/** One attempt as its page and `bvl eval show` present it: the attempt, its batch, the prompt it was given and its transcript. */
export interface AttemptView {
  readonly batch: EvalBatch;
  readonly attempt: StoredAttempt;
  /** The prompt the agent was given (the case's, or its prompt variant's), from the stored case. */
  readonly prompt: string;
  /** The build session's transcript, when its store recorded one (see TranscriptReader). */
  readonly transcript: AttemptTranscript | null;
}

/** Which attempts of a batch to view: all, or those of a case (and variant, prompt, subject, epoch). */
export interface AttemptFilter {
  readonly case?: string | undefined;
  readonly variant?: string | undefined;
  readonly prompt?: string | undefined;
  readonly subject?: string | undefined;
  readonly epoch?: number | undefined;
}

/**
 * The attempts of a batch that match `filter`, each with its prompt (from the case stored at the
 * planned version) and its transcript, read through `transcripts` (the session store's, once it
 * records them). Throws an EvalRunError for an unknown batch, or a filter that matches nothing
 * (naming what the batch has).
 */
export async function loadAttemptViews(
  ctx: PlatformContext,
  batchId: number,
  filter: AttemptFilter = {},
  transcripts: TranscriptReader = noTranscripts,
): Promise<{ batch: EvalBatch; views: AttemptView[] }> {
  const batch = await getBatch(ctx, batchId);
  if (!batch) throw new EvalRunError(`there is no eval batch ${batchId}`);
  const all = await listAttempts(ctx, batch, { full: true });
  const chosen = all.filter(
    (a) =>
      (filter.case === undefined || a.case === filter.case) &&
      (filter.variant === undefined || a.variant === filter.variant) &&
      (filter.prompt === undefined || a.prompt === filter.prompt) &&
      (filter.subject === undefined || a.subject === filter.subject) &&
      (filter.epoch === undefined || a.epoch === filter.epoch),
  );
  if (chosen.length === 0 && (filter.case !== undefined || filter.variant !== undefined || filter.subject !== undefined || filter.epoch !== undefined)) {
    const cases = [...new Set(all.map((a) => a.case))];
    throw new EvalRunError(
      filter.case !== undefined && !cases.includes(filter.case)
        ? `batch ${batch.id} has no attempt of case "${filter.case}" (it has: ${cases.join(', ') || 'none recorded'})`
        : `batch ${batch.id} has no attempt matching ${JSON.stringify(filter)}`,
    );
  }
  const planned = await loadPlannedCases(
    ctx,
    batch.plan.filter((e) => chosen.some((a) => a.case === e.case)),
  );
  const views: AttemptView[] = [];
  for (const attempt of chosen) {
    const c = planned.get(attempt.case);
    const prompt = (attempt.prompt === DEFAULT_PROMPT ? c?.prompt : c?.prompts?.[attempt.prompt]) ?? '(the case is not in the store)';
    const transcript = attempt.session ? await transcripts(ctx, { tenant: attempt.session.tenant, id: attempt.session.id }) : null;
    views.push({ batch, attempt, prompt, transcript });
  }
  return { batch, views };
}
