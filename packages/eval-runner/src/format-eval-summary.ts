import type { Comparison } from './compare-batches.ts';
import { DEFAULT_PROMPT } from './eval-agent.ts';
import { agentOfSubject } from './eval-subject.ts';
import type { EvalStatus } from './grade-attempt.ts';
import type { EvalBatch } from './run-eval-store.ts';
import type { BatchSummary, EntrySummary, Spend } from './summarize-batch.ts';

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

/** Money as "$0.0123" (four decimals below a dollar, two above). */
export const usd = (x: number): string => `$${x >= 1 ? x.toFixed(2) : x.toFixed(4)}`;

/** A count with thousands separators. */
export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Tokens and cost in words: `12,300 tokens in · 1,200 out · $0.0123`, and the judge's apart; null when nothing was spent. */
export function spendLine(s: Spend): string | null {
  const judge = s.judgeTokensIn + s.judgeTokensOut > 0 || s.judgeCostUsd > 0;
  if (s.tokensIn + s.tokensOut === 0 && s.costUsd === 0 && !judge) return null;
  const agent = `${count(s.tokensIn)} tokens in · ${count(s.tokensOut)} out · ${usd(s.costUsd)}`;
  return judge ? `${agent} · judge ${count(s.judgeTokensIn + s.judgeTokensOut)} tokens, ${usd(s.judgeCostUsd)}` : agent;
}

/** Where an entry sits: case and variant, with the prompt variant and the subject when the batch has more than one. */
export function entryLabel(e: Pick<EntrySummary, 'variant' | 'prompt' | 'subject'>, show: { prompts: boolean; subjects: boolean }): string {
  return `${e.variant}${show.prompts && e.prompt !== DEFAULT_PROMPT ? ` ~${e.prompt}` : ''}${show.subjects ? ` @ ${e.subject}` : ''}`;
}

/** Rows of text as aligned columns (the first left-aligned, the rest right-aligned: figures). */
export function columns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** The subjects of a matrix side by side (pure): pass rate, pass@k, rounds, tokens, cost, latency. */
export function subjectTable(s: BatchSummary): string[] {
  const k = s.epochs;
  const rows = [
    ['subject', 'pass', 'pass rate', 'pass@1', ...(k > 1 ? [`pass@${k}`] : []), 'rounds', 'tokens', 'cost', 'latency'],
    ...s.subjects.map((x) => [
      x.subject,
      `${x.pass}/${x.attempts}`,
      percent(x.passRate),
      percent(x.passAt1),
      ...(k > 1 ? [percent(x.passAtK)] : []),
      x.meanRounds === null ? '–' : x.meanRounds.toFixed(1),
      count(x.tokensIn + x.tokensOut),
      usd(x.costUsd),
      x.meanLatencyMs === null ? '–' : duration(x.meanLatencyMs),
    ]),
  ];
  return columns(rows);
}

/**
 * The terminal summary (pure): one line per entry — mark, case, variant (prompt and subject in a
 * matrix), passes of attempts, and the first failure reasons, a failure the case expects of the
 * agent marked so — then the totals, failures expected and not, pass@1 / pass@k / pass^k, tokens
 * and cost, the subjects side by side, and the comparison with the baseline (like with like,
 * saying what was left out) naming every regressed entry.
 */
export function formatEvalSummary(input: SummaryInput): string {
  const { batch, summary: s } = input;
  const show = { prompts: s.entries.some((e) => e.prompt !== DEFAULT_PROMPT), subjects: s.subjects.length > 1 };
  const lines: string[] = [];
  const caseWidth = Math.max(4, ...s.entries.map((e) => e.case.length));
  const labelWidth = Math.max(7, ...s.entries.map((e) => entryLabel(e, show).length));
  for (const e of s.entries) {
    const st = entryStatus(e);
    const mark = st === 'pending' ? '·' : MARK[st];
    const expected = e.expectedFail > 0 ? `  (expected of ${agentOfSubject(e.subject)})` : e.unexpectedPass > 0 ? '  (passed, though expected to fail)' : '';
    lines.push(
      `${mark} ${e.case.padEnd(caseWidth)}  ${entryLabel(e, show).padEnd(labelWidth)}  ${e.pass}/${e.attempts}${e.attempts < e.planned ? ` (of ${e.planned})` : ''}${expected}`,
    );
    if (e.expectedFail === e.fail + e.limit && e.expectedFail > 0) continue;
    for (const f of e.failures.slice(0, MAX_REASONS)) lines.push(`    #${f.epoch} ${f.status}: ${f.reason ?? ''}`);
    if (e.failures.length > MAX_REASONS) lines.push(`    … and ${e.failures.length - MAX_REASONS} more`);
  }
  lines.push('');
  const took = input.wallMs !== undefined ? ` in ${duration(input.wallMs)}` : '';
  const each = s.meanLatencyMs !== null ? ` (${duration(s.meanLatencyMs)} per attempt)` : '';
  const who = s.subjects.length > 1 ? `${s.subjects.length} subjects` : `agent ${batch.agent}${batch.model ? ` (${batch.model})` : ''}`;
  lines.push(`batch ${batch.id} · ${who} · suite ${batch.suite} · ${s.attempts}/${s.planned} attempts${took}${each}`);
  lines.push(`pass ${s.pass} · fail ${s.fail} · error ${s.error} · limit ${s.limit} — pass rate ${percent(s.passRate)}`);
  if (s.expectedFail > 0 || s.unexpectedPass > 0)
    lines.push(
      `failures: ${s.unexpectedFail} unexpected, ${s.expectedFail} expected of the agent (defect sets it cannot repair by design)${s.unexpectedPass > 0 ? `; ${s.unexpectedPass} passed though expected to fail` : ''}`,
    );
  if (s.epochs > 1) lines.push(`pass@1 ${percent(s.passAt1)} · pass@${s.epochs} ${percent(s.passAtK)} · pass^${s.epochs} ${percent(s.passHatK)}`);
  const spent = spendLine(s);
  if (spent) lines.push(`spent: ${spent}`);
  if (s.subjects.length > 1) lines.push('', ...subjectTable(s), '');
  const c = input.comparison;
  if (c === null) lines.push('baseline: none (no earlier finished batch of this suite, its defect sets and its subjects)');
  else {
    lines.push(
      `baseline batch ${c.batch} (${c.compared} entr${c.compared === 1 ? 'y' : 'ies'} like with like): pass rate ${percent(c.passRate)} → ${percent(c.currentPassRate)}`,
    );
    for (const u of c.unlike) lines.push(`  unlike: ${u}`);
    const showChange = (x: Comparison['regressed'][number]) =>
      `${x.case}/${entryLabel(x, show)} ${percent(x.before)} → ${percent(x.after)}${x.versionChanged ? ' (case changed)' : ''}`;
    lines.push(c.regressed.length === 0 ? '  regressed: none' : `  regressed (${c.regressed.length}): ${c.regressed.map(showChange).join(', ')}`);
    if (c.improved.length > 0) lines.push(`  improved (${c.improved.length}): ${c.improved.map(showChange).join(', ')}`);
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
