import { roundStates } from './attempt-session.ts';
import { boundedText, MAX_SHOWN_TURNS } from './attempt-transcript.ts';
import { DEFAULT_PROMPT } from './eval-agent.ts';
import { count, duration, usd } from './format-eval-summary.ts';
import { outcomeOf } from './grade.ts';
import { cardLine } from './render-attempt-page.ts';
import type { AttemptView } from './run-batch-report.ts';

/** Characters of a transcript turn printed at most in a terminal. */
const TERMINAL_TURN_CHARS = 600;

/**
 * One attempt for a terminal (pure; `bvl eval show <batch> --case c`): its status and why, the
 * prompt, the card, tokens and cost, each round with its issues marked new / reappeared /
 * persisting and the ones it fixed, the transcript's turns (or "no transcript recorded"), the
 * assertions that did not pass, the intent review and the earlier tries.
 */
export function formatAttempt(view: AttemptView): string {
  const a = view.attempt;
  const lines: string[] = [];
  const expected = a.expected === 'fail' ? (a.status === 'pass' ? ' (passed, though expected to fail)' : ' (expected of this agent)') : '';
  lines.push(`${a.case} / ${a.variant}${a.prompt !== DEFAULT_PROMPT ? ` ~${a.prompt}` : ''} #${a.epoch} @ ${a.subject} — ${a.status}${expected}`);
  if (a.failureReason) lines.push(`  ${a.failureReason}`);
  lines.push(`  batch ${view.batch.id} · ${duration(a.latencyMs)} · repair rounds ${a.repairRounds ?? '–'} · stop ${a.stopReason ?? '–'} · worker ${a.worker}`);
  lines.push(
    `  tokens ${count(a.tokensIn)} in · ${count(a.tokensOut)} out · ${usd(a.costUsd)}${a.judgeUsage.costUsd > 0 || a.judgeUsage.tokensIn > 0 ? ` · judge ${usd(a.judgeUsage.costUsd)}` : ''}`,
  );
  lines.push(`  card: ${a.card ? cardLine(a.card) : 'none (the attempt ended before verification)'}`);
  lines.push('  prompt:', ...view.prompt.split('\n').map((l) => `    ${l}`));
  const s = a.session;
  if (!s) lines.push('  rounds: none (the agent never opened a build session)');
  else
    s.rounds.forEach((r, i) => {
      const { issues, fixed } = roundStates(s.rounds, i);
      lines.push(
        `  round ${r.round} ${r.kind}: ${r.errors} error(s), ${r.warnings} warning(s); fixed ${r.fixed.length}, new ${r.new.length}, reappeared ${r.reappeared.length}${r.fixes.length ? `, auto-fixed ${r.fixes.length + r.fixesOmitted}` : ''}${r.stopReason ? ` → ${r.stopReason}` : ''}`,
      );
      for (const { issue, state } of issues)
        lines.push(
          `    ${state.padEnd(10)} ${issue.severity === 'error' ? '✗' : '⚠'} ${issue.code} ${issue.artifact.type} ${issue.artifact.name}${issue.path ? ` ${issue.path}` : ''}`,
        );
      if (r.issuesOmitted > 0) lines.push(`    … and ${r.issuesOmitted} more`);
      for (const f of fixed)
        lines.push(`    ${'fixed'.padEnd(10)} ✓ ${typeof f === 'string' ? f : `${f.code} ${f.artifact.type} ${f.artifact.name}${f.path ? ` ${f.path}` : ''}`}`);
    });
  const t = view.transcript;
  if (!t || t.turns.length === 0) lines.push('  transcript: no transcript recorded');
  else {
    lines.push(`  transcript (${t.turns.length + (t.omitted ?? 0)} turns):`);
    for (const turn of t.turns.slice(0, MAX_SHOWN_TURNS)) {
      const calls = (turn.toolCalls ?? []).map((c) => `${c.name}(${boundedText(c.arguments, 120)})`).join(', ');
      lines.push(`    ${turn.role}: ${boundedText((turn.content ?? '').replace(/\s+/g, ' '), TERMINAL_TURN_CHARS)}${calls ? ` → ${calls}` : ''}`);
    }
    const more = Math.max(0, t.turns.length - MAX_SHOWN_TURNS) + (t.omitted ?? 0);
    if (more > 0) lines.push(`    … ${more} more turns (cut at the transcript's bound)`);
  }
  const notPassed = a.assertions.filter((x) => outcomeOf(x) !== 'pass');
  if (notPassed.length > 0) {
    lines.push(`  assertions: ${a.assertions.length - notPassed.length} of ${a.assertions.length} passed`);
    for (const x of notPassed) lines.push(`    ${outcomeOf(x).padEnd(8)} ${x.kind}${x.role ? ` ${x.role}` : ''}: ${JSON.stringify(x.evidence)}`);
  } else if (a.assertions.length > 0) lines.push(`  assertions: all ${a.assertions.length} passed`);
  if (a.review) {
    lines.push(`  intent review: ${a.review.verdict}`);
    for (const i of a.review.issues) lines.push(`    ⚠ ${i.artifact.type} ${i.artifact.name}: ${i.message}`);
  }
  if (a.tries.length > 0) {
    lines.push(`  earlier tries (${a.tries.length}):`);
    a.tries.forEach((x, i) => lines.push(`    ${i + 1}. ${x.status} ${x.startedAt} on ${x.worker}: ${x.failureReason ?? ''}`));
  }
  return `${lines.join('\n')}\n`;
}
