import type { Comparison } from './compare-batches.ts';
import type { EvalStatus } from './grade-attempt.ts';
import type { EvalBatch } from './run-eval-store.ts';
import type { BatchSummary, EntrySummary } from './summarize-batch.ts';

/** A rate as a percentage, or "–" when nothing was graded. */
export const percent = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

/** Milliseconds as "850 ms", "4.2 s" or "3 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

const MARK: Record<EvalStatus | 'mixed', string> = { pass: '✓', fail: '✗', error: '!', limit: '⧗', mixed: '~' };

/** An entry's overall mark: the one status of all its attempts, or mixed. */
export function entryStatus(e: EntrySummary): EvalStatus | 'mixed' | 'pending' {
  const seen = (['pass', 'fail', 'error', 'limit'] as const).filter((s) => e[s] > 0);
  return seen.length === 0 ? 'pending' : seen.length === 1 ? seen[0]! : 'mixed';
}

/** What the terminal summary shows. */
export interface SummaryInput {
  readonly batch: EvalBatch;
  readonly summary: BatchSummary;
  readonly comparison: Comparison | null;
  readonly wallMs?: number | undefined;
  readonly complete: boolean;
}

/** Failure reasons printed per entry at most (the JSON and the HTML report have them all). */
const MAX_REASONS = 2;

/**
 * The terminal summary (pure): one line per entry — mark, case, variant, passes of attempts, and the
 * first failure reasons — then the totals, pass@1 / pass@k / pass^k, and the comparison with the
 * baseline naming every regressed entry.
 */
export function formatEvalSummary(input: SummaryInput): string {
  const { batch, summary: s } = input;
  const lines: string[] = [];
  const caseWidth = Math.max(4, ...s.entries.map((e) => e.case.length));
  const variantWidth = Math.max(7, ...s.entries.map((e) => e.variant.length));
  for (const e of s.entries) {
    const st = entryStatus(e);
    const mark = st === 'pending' ? '·' : MARK[st];
    lines.push(
      `${mark} ${e.case.padEnd(caseWidth)}  ${e.variant.padEnd(variantWidth)}  ${e.pass}/${e.attempts}${e.attempts < e.planned ? ` (of ${e.planned})` : ''}`,
    );
    for (const f of e.failures.slice(0, MAX_REASONS)) lines.push(`    #${f.epoch} ${f.status}: ${f.reason ?? ''}`);
    if (e.failures.length > MAX_REASONS) lines.push(`    … and ${e.failures.length - MAX_REASONS} more`);
  }
  lines.push('');
  const took = input.wallMs !== undefined ? ` in ${duration(input.wallMs)}` : '';
  const each = s.meanLatencyMs !== null ? ` (${duration(s.meanLatencyMs)} per attempt)` : '';
  lines.push(
    `batch ${batch.id} · agent ${batch.agent}${batch.model ? ` (${batch.model})` : ''} · suite ${batch.suite} · ${s.attempts}/${s.planned} attempts${took}${each}`,
  );
  lines.push(`pass ${s.pass} · fail ${s.fail} · error ${s.error} · limit ${s.limit} — pass rate ${percent(s.passRate)}`);
  if (s.epochs > 1) lines.push(`pass@1 ${percent(s.passAt1)} · pass@${s.epochs} ${percent(s.passAtK)} · pass^${s.epochs} ${percent(s.passHatK)}`);
  const c = input.comparison;
  if (c === null) lines.push('baseline: none (the first batch of this suite and agent)');
  else {
    lines.push(`baseline batch ${c.batch}: pass rate ${percent(c.passRate)} → ${percent(s.passRate)}`);
    const show = (x: Comparison['regressed'][number]) =>
      `${x.case}/${x.variant} ${percent(x.before)} → ${percent(x.after)}${x.versionChanged ? ' (case changed)' : ''}`;
    lines.push(c.regressed.length === 0 ? '  regressed: none' : `  regressed (${c.regressed.length}): ${c.regressed.map(show).join(', ')}`);
    if (c.improved.length > 0) lines.push(`  improved (${c.improved.length}): ${c.improved.map(show).join(', ')}`);
  }
  if (!input.complete) lines.push(`stopped before the end: continue with  bvl eval --resume ${batch.id}`);
  return `${lines.join('\n')}\n`;
}

/** Width of the progress bar, in characters. */
const BAR = 24;

/** One progress line for a terminal (pure): bar, done/total, counts, and the time left at the pace so far. */
export function formatProgress(p: {
  readonly done: number;
  readonly total: number;
  readonly counts: Readonly<Record<EvalStatus, number>>;
  readonly elapsedMs: number;
  /** Attempts this run has finished (a resume starts with some done). */
  readonly ran: number;
  readonly note?: string | undefined;
}): string {
  const frac = p.total === 0 ? 1 : Math.min(1, p.done / p.total);
  const filled = Math.round(frac * BAR);
  const left = p.total - p.done;
  const eta = p.ran > 0 && left > 0 ? ` · ~${duration((p.elapsedMs / p.ran) * left)} left` : '';
  const c = p.counts;
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR - filled)}] ${p.done}/${p.total} · ✓ ${c.pass} ✗ ${c.fail} ! ${c.error} ⧗ ${c.limit}${eta}${p.note ? ` · ${p.note}` : ''}`;
}
