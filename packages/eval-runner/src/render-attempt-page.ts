import { escapeHtml as esc } from '@bvl/render-contract';
import { type BuildCard, formatCardLine } from '@bvl/verify-build';
import { type AttemptCard, roundStates } from './attempt-session.ts';
import { type AttemptTranscript, boundedText, MAX_SHOWN_TURNS } from './attempt-transcript.ts';
import { DEFAULT_PROMPT } from './eval-agent.ts';
import { count, duration, usd } from './format-eval-summary.ts';
import { outcomeOf } from './grade.ts';
import { REPORT_CSS } from './render-eval-report.ts';
import type { AttemptView } from './run-batch-report.ts';
import type { StoredAttempt } from './run-eval-store.ts';

/** The file name of an attempt's page, next to the report (letters, digits, `.`, `_` and `-` only). */
export function attemptPageName(a: Pick<StoredAttempt, 'case' | 'variant' | 'prompt' | 'subject' | 'epoch'>): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '_');
  return `${safe(a.case)}.${safe(a.variant)}${a.prompt !== DEFAULT_PROMPT ? `~${safe(a.prompt)}` : ''}.${safe(a.subject)}.${a.epoch}.html`;
}

/** The card's one line (the stored card keeps its layers, not its issues). */
export const cardLine = (card: AttemptCard): string => formatCardLine({ ...card, byArtifact: [] } as BuildCard);

const num = (x: string | number) => `<td class="num">${typeof x === 'number' ? x : esc(x)}</td>`;

function roundsSection(a: StoredAttempt): string {
  const s = a.session;
  if (!s) return '<p class="none">No build session: the agent never opened one.</p>';
  const head = `<table class="rounds"><thead><tr><th>round</th><th>kind</th><th class="num">errors</th><th class="num">warnings</th><th class="num">fixed</th><th class="num">new</th><th class="num">reappeared</th><th class="num">auto-fixed</th><th class="num">tokens</th><th class="num">cost</th><th class="num">took</th><th>stop</th></tr></thead><tbody>`;
  const rows = s.rounds
    .map(
      (r) =>
        `<tr data-round="${r.round}"><td>${r.round}</td><td>${esc(r.kind)}</td>${num(r.errors)}${num(r.warnings)}${num(r.fixed.length)}${num(r.new.length)}${num(r.reappeared.length)}${num(r.fixes.length + r.fixesOmitted)}${num(count(r.tokensIn + r.tokensOut))}${num(usd(r.costUsd))}${num(duration(r.durationMs))}<td>${esc(r.stopReason ?? '')}</td></tr>`,
    )
    .join('');
  const details = s.rounds
    .map((r, i) => {
      const { issues, fixed } = roundStates(s.rounds, i);
      const issueRows = issues
        .map(
          ({ issue, state }) =>
            `<tr class="issue" data-state="${state}"><td><span class="state ${state}">${state}</span></td><td class="${issue.severity === 'error' ? 'fail' : 'mixed'}">${esc(issue.severity)}</td><td><code>${esc(issue.code)}</code></td><td>${esc(issue.artifact.type)} ${esc(issue.artifact.name)}${issue.ref?.member ? `.${esc(issue.ref.member)}` : ''}</td><td>${esc(issue.message)}</td></tr>`,
        )
        .join('');
      const fixedRows = fixed
        .map((f) =>
          typeof f === 'string'
            ? `<tr class="issue" data-state="fixed"><td><span class="state fixed">fixed</span></td><td></td><td colspan="3"><code>${esc(f)}</code></td></tr>`
            : `<tr class="issue" data-state="fixed"><td><span class="state fixed">fixed</span></td><td>${esc(f.severity)}</td><td><code>${esc(f.code)}</code></td><td>${esc(f.artifact.type)} ${esc(f.artifact.name)}</td><td>${esc(f.message)}</td></tr>`,
        )
        .join('');
      const table =
        issueRows || fixedRows
          ? `<table class="round-issues"><thead><tr><th>state</th><th>severity</th><th>code</th><th>artifact</th><th>message</th></tr></thead><tbody>${issueRows}${fixedRows}</tbody></table>`
          : '<p>No issue in this round.</p>';
      const omitted = r.issuesOmitted > 0 ? `<p class="meta">… and ${r.issuesOmitted} more issues in this round (kept: the first ${r.issues.length}).</p>` : '';
      const fixes = r.fixes.length
        ? `<p class="meta">The fixer changed: ${r.fixes.map((f) => `${esc(f.artifact.type)} ${esc(f.artifact.name)} <code>${esc(f.path)}</code> ${esc(JSON.stringify(f.old ?? null))} → ${esc(JSON.stringify(f.new ?? null))}`).join('; ')}${r.fixesOmitted ? `; and ${r.fixesOmitted} more` : ''}</p>`
        : '';
      return `<section class="round" data-round="${r.round}"><h4>Round ${r.round} · ${esc(r.kind)} → ${esc(r.next)}</h4><p>${esc(r.why)}</p>${table}${omitted}${fixes}</section>`;
    })
    .join('\n');
  return `<p class="meta">session <code>${esc(s.id)}</code> · ${esc(s.status)}${s.stopReason ? ` (${esc(s.stopReason)})` : ''} · ${s.repairRounds} of ${s.maxRounds} repair rounds</p>${head}${rows}</tbody></table>${details}`;
}

function transcriptSection(t: AttemptTranscript | null): string {
  if (!t || t.turns.length === 0) return '<p class="no-transcript">No transcript recorded for this build session.</p>';
  const shown = t.turns.slice(0, MAX_SHOWN_TURNS);
  const more = t.turns.length - shown.length + (t.omitted ?? 0);
  const turns = shown
    .map((turn, i) => {
      const calls = (turn.toolCalls ?? [])
        .map((c) => `<p><b>calls</b> <code>${esc(c.name)}</code> <small>${esc(c.id)}</small></p><pre>${esc(boundedText(c.arguments))}</pre>`)
        .join('');
      const usage = turn.tokensIn || turn.tokensOut ? ` <small>${count(turn.tokensIn ?? 0)} in · ${count(turn.tokensOut ?? 0)} out</small>` : '';
      return `<div class="turn ${turn.role}" data-turn="${i}"><p><b>${esc(turn.role)}</b>${turn.toolCallId ? ` <small>answers ${esc(turn.toolCallId)}</small>` : ''}${usage}</p>${turn.content ? `<pre>${esc(boundedText(turn.content))}</pre>` : ''}${calls}</div>`;
    })
    .join('\n');
  return `${turns}${more > 0 ? `<p class="meta">… ${more} more turn${more === 1 ? '' : 's'} not shown (the transcript was cut at its bound).</p>` : ''}`;
}

function assertionsSection(a: StoredAttempt): string {
  if (a.assertions.length === 0) return '<p>Not graded (the attempt did not get that far).</p>';
  const rows = a.assertions
    .map((x) => {
      const o = outcomeOf(x);
      return `<tr data-outcome="${o}"><td>${esc(x.kind)}${x.role ? ` <code>${esc(x.role)}</code>` : ''}</td><td class="${o}">${o}</td><td><code class="evidence">${esc(JSON.stringify(x.evidence))}</code></td></tr>`;
    })
    .join('');
  return `<table class="assertions"><thead><tr><th>assertion</th><th>outcome</th><th>what was seen</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function issuesSection(a: StoredAttempt): string {
  if (a.issues.length === 0) return '<p>No issue was left.</p>';
  return `<table class="issues"><thead><tr><th>severity</th><th>code</th><th>artifact</th><th>path</th><th>message</th></tr></thead><tbody>${a.issues
    .map(
      (i) =>
        `<tr><td class="${i.severity === 'error' ? 'fail' : 'mixed'}">${esc(i.severity)}</td><td><code>${esc(i.code)}</code></td><td>${esc(i.artifact.type)} ${esc(i.artifact.name)}${i.ref?.member ? `.${esc(i.ref.member)}` : ''}</td><td><code>${esc(i.path ?? '')}</code></td><td>${esc(i.message)}${i.fix ? `<br><small>fix: ${esc(i.fix)}</small>` : ''}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

function triesSection(a: StoredAttempt): string {
  if (a.tries.length === 0) return '';
  const rows = a.tries
    .map(
      (t, i) =>
        `<tr><td class="num">${i + 1}</td><td class="${t.status}">${esc(t.status)}</td><td>${esc(t.failureReason ?? '')}</td><td>${esc(t.worker)}</td><td>${esc(t.startedAt)}</td>${num(duration(t.latencyMs))}</tr>`,
    )
    .join('');
  return `<h2>Earlier tries (${a.tries.length})</h2><p class="meta">This attempt was run again; each earlier try is kept as it was.</p><table class="tries"><thead><tr><th class="num">try</th><th>status</th><th>reason</th><th>worker</th><th>started</th><th class="num">took</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/**
 * One attempt's page (pure, self-contained: no script, no external resource): what it was asked
 * (the prompt), how its build went round by round — each round's issues marked new, reappeared or
 * persisting, the issues it fixed, what the fixer changed — the model's turns and tool calls when
 * the session recorded a transcript ("no transcript recorded" otherwise), the card, tokens and
 * cost, every assertion with its outcome and evidence, the intent review, the issues left, and
 * the earlier tries of the attempt. `reportHref` links back to the batch's report.
 */
export function renderAttemptPage(view: AttemptView, options: { readonly reportHref?: string } = {}): string {
  const { batch: b, attempt: a } = view;
  const title = `${a.case} / ${a.variant}${a.prompt !== DEFAULT_PROMPT ? ` ~${a.prompt}` : ''} #${a.epoch}`;
  const expected = a.expected === 'fail' ? (a.status === 'pass' ? ' (passed, though expected to fail)' : ' (expected of this agent)') : '';
  const tile = (label: string, value: string, cls = '') => `<div class="tile ${cls}"><b>${esc(value)}</b>${esc(label)}</div>`;
  const review = a.review
    ? `<h2>Intent review</h2><p class="review">verdict <b>${esc(a.review.verdict)}</b>${a.review.issues.length ? '' : ': no finding'}</p>${a.review.issues.length ? `<ul>${a.review.issues.map((i) => `<li>${esc(i.artifact.type)} ${esc(i.artifact.name)}: ${esc(i.message)}</li>`).join('')}</ul>` : ''}`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>bvl eval — ${esc(title)} (batch ${b.id})</title><style>${REPORT_CSS}</style></head>
<body>
${options.reportHref ? `<p><a href="${esc(options.reportHref)}">← batch ${b.id}</a></p>` : ''}
<h1>${esc(title)} — <span class="${a.status}">${esc(a.status)}</span>${esc(expected)}</h1>
<p class="meta">batch ${b.id} · suite ${esc(b.suite)} · subject <b>${esc(a.subject)}</b> · case version <code>${esc(a.version.slice(0, 12))}</code> · worker ${esc(a.worker)} · started ${esc(a.startedAt)} · ${duration(a.latencyMs)}</p>
${a.failureReason ? `<p class="reason">${esc(a.failureReason)}</p>` : ''}
<div class="tiles">${tile('repair rounds', a.repairRounds === null ? '–' : String(a.repairRounds))}${tile('errors left', String(a.issues.filter((i) => i.severity === 'error').length))}${tile('tokens in', count(a.tokensIn))}${tile('tokens out', count(a.tokensOut))}${tile('cost', usd(a.costUsd))}${a.judgeUsage.costUsd > 0 || a.judgeUsage.tokensIn > 0 ? tile('judge cost', usd(a.judgeUsage.costUsd)) : ''}${tile('stop reason', a.stopReason ?? '–')}</div>
<h2>Prompt</h2>
<pre class="prompt">${esc(view.prompt)}</pre>
<h2>Card</h2>
<p class="card">${a.card ? esc(cardLine(a.card)) : 'No card: the attempt ended before verification.'}</p>
<h2>Rounds</h2>
${roundsSection(a)}
<h2>Transcript</h2>
${transcriptSection(view.transcript)}
<h2>Assertions</h2>
${assertionsSection(a)}
${review}
<h2>Issues left</h2>
${issuesSection(a)}
${triesSection(a)}
</body></html>
`;
}
