import { escapeHtml as esc } from '@bvl/render-contract';
import type { Comparison } from './compare-batches.ts';
import { DEFAULT_PROMPT } from './eval-agent.ts';
import { count, duration, entryLabel, entryStatus, percent, usd } from './format-eval-summary.ts';
import { outcomeOf } from './grade.ts';
import { passRateChart, type RatePoint } from './pass-rate-chart.ts';
import type { EvalBatch, StoredAttempt } from './run-eval-store.ts';
import type { BatchSummary } from './summarize-batch.ts';

/** What the HTML report shows. */
export interface EvalReportInput {
  readonly batch: EvalBatch;
  readonly summary: BatchSummary;
  /** The batch's attempts with assertions, issues and evidence (listAttempts with `full`). */
  readonly attempts: readonly StoredAttempt[];
  /** Pass rate of the last batches of the suite and agent, oldest first (this one included). */
  readonly history: readonly RatePoint[];
  readonly comparison: Comparison | null;
}

/**
 * The stylesheet of the HTML eval report and its attempt pages (inline: the pages are
 * self-contained). A numeric column is right-aligned in its header and its cells alike (`.num`),
 * so a figure always sits under its own heading.
 */
export const REPORT_CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#111}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}h4{font-size:14px;margin:12px 0 4px}.meta{color:#555}
.tiles{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0}.tile{border:1px solid #e5e7eb;border-radius:8px;padding:8px 14px;min-width:90px}
.tile b{display:block;font-size:20px}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{border-bottom:1px solid #eee;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f9fafb;font-weight:600}th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pass{color:#15803d}.fail{color:#b91c1c}.error{color:#b45309}.limit{color:#6d28d9}.mixed{color:#a16207}.expected{color:#6b7280}
.skipped,.ungraded{color:#6b7280}
.failure{border:1px solid #fecaca;border-radius:8px;padding:4px 14px 10px;margin:12px 0}
.round{border:1px solid #e5e7eb;border-radius:8px;padding:4px 14px 10px;margin:10px 0}
.state{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px}.state.new{background:#fee2e2}.state.reappeared{background:#fde68a}.state.persisting{background:#e5e7eb}.state.fixed{background:#dcfce7}
.turn{border-left:3px solid #e5e7eb;padding:2px 10px;margin:8px 0}.turn.assistant{border-color:#93c5fd}.turn.tool{border-color:#a7f3d0}.turn.user{border-color:#fcd34d}
pre{background:#f6f8fa;padding:8px;border-radius:6px;overflow:auto;max-height:320px;font-size:12px;white-space:pre-wrap;word-break:break-word}
code{font-size:12.5px}code.evidence{white-space:pre-wrap;word-break:break-word;font-size:12px;color:#374151}details summary{cursor:pointer;color:#1d4ed8}
a{color:#1d4ed8}
`;

/** Failed assertions shown unfolded at most. */
const OPEN_ASSERTIONS = 5;

const MARK: Record<string, string> = { pass: '✓ pass', fail: '✗ fail', error: '! error', limit: '⧗ limit', mixed: '~ mixed', pending: '· pending' };

type Show = { readonly prompts: boolean; readonly subjects: boolean };

/** A link to an attempt's page, when the report has them. */
type Href = ((a: StoredAttempt) => string) | undefined;

function entryRows(s: BatchSummary, attempts: readonly StoredAttempt[], show: Show, href: Href): string {
  const k = s.epochs > 1;
  return s.entries
    .map((e) => {
      const st = entryStatus(e);
      const runs = attempts.filter((a) => a.case === e.case && a.variant === e.variant && a.prompt === e.prompt && a.subject === e.subject);
      const links = href ? runs.map((a) => `<a href="${esc(href(a))}">#${a.epoch}</a>`).join(' ') : '';
      const expected =
        e.expectedFail > 0 ? ` <span class="expected">(expected)</span>` : e.unexpectedPass > 0 ? ' <span class="mixed">(expected to fail)</span>' : '';
      return `<tr class="entry" data-case="${esc(e.case)}" data-variant="${esc(e.variant)}" data-prompt="${esc(e.prompt)}" data-subject="${esc(e.subject)}" data-status="${st}"><td>${esc(e.case)}</td><td>${esc(entryLabel(e, show))}</td><td class="${st}">${MARK[st]}${expected}</td><td class="num">${e.pass}/${e.attempts}</td><td class="num">${percent(e.passAt1)}</td>${k ? `<td class="num">${percent(e.passAtK)}</td><td class="num">${percent(e.passHatK)}</td>` : ''}<td class="num">${e.meanRounds === null ? '–' : e.meanRounds.toFixed(1)}</td><td class="num">${count(e.tokensIn + e.tokensOut)}</td><td class="num">${usd(e.costUsd)}</td><td class="num">${e.meanLatencyMs === null ? '–' : duration(e.meanLatencyMs)}</td><td>${links}</td></tr>`;
    })
    .join('\n');
}

function subjectsTable(s: BatchSummary): string {
  const k = s.epochs > 1;
  const rows = s.subjects
    .map(
      (x) =>
        `<tr class="subject" data-subject="${esc(x.subject)}"><td>${esc(x.subject)}</td><td class="num">${x.pass}/${x.attempts}</td><td class="num">${percent(x.passRate)}</td><td class="num">${percent(x.passAt1)}</td>${k ? `<td class="num">${percent(x.passAtK)}</td>` : ''}<td class="num">${x.unexpectedFail}</td><td class="num">${x.expectedFail}</td><td class="num">${x.meanRounds === null ? '–' : x.meanRounds.toFixed(1)}</td><td class="num">${count(x.tokensIn)}</td><td class="num">${count(x.tokensOut)}</td><td class="num">${usd(x.costUsd)}</td><td class="num">${x.meanLatencyMs === null ? '–' : duration(x.meanLatencyMs)}</td></tr>`,
    )
    .join('');
  return `<table class="subjects"><thead><tr><th>subject</th><th class="num">passes</th><th class="num">pass rate</th><th class="num">pass@1</th>${k ? `<th class="num">pass@${s.epochs}</th>` : ''}<th class="num">unexpected failures</th><th class="num">expected failures</th><th class="num">rounds</th><th class="num">tokens in</th><th class="num">tokens out</th><th class="num">cost</th><th class="num">latency</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function caseSpendTable(s: BatchSummary): string {
  const rows = s.cases
    .map(
      (c) =>
        `<tr data-case="${esc(c.case)}"><td>${esc(c.case)}</td><td class="num">${c.attempts}</td><td class="num">${count(c.tokensIn)}</td><td class="num">${count(c.tokensOut)}</td><td class="num">${usd(c.costUsd)}</td><td class="num">${usd(c.judgeCostUsd)}</td></tr>`,
    )
    .join('');
  return `<table class="spend"><thead><tr><th>case</th><th class="num">attempts</th><th class="num">tokens in</th><th class="num">tokens out</th><th class="num">cost</th><th class="num">judge cost</th></tr></thead><tbody>${rows}<tr class="total"><th>total</th><td class="num">${s.attempts}</td><td class="num">${count(s.tokensIn)}</td><td class="num">${count(s.tokensOut)}</td><td class="num">${usd(s.costUsd)}</td><td class="num">${usd(s.judgeCostUsd)}</td></tr></tbody></table>`;
}

function failureSection(a: StoredAttempt, href: Href): string {
  const issues = a.issues.length
    ? `<table class="issues"><thead><tr><th>severity</th><th>code</th><th>artifact</th><th>path</th><th>message</th></tr></thead><tbody>${a.issues
        .map(
          (i) =>
            `<tr><td class="${i.severity === 'error' ? 'fail' : 'mixed'}">${esc(i.severity)}</td><td><code>${esc(i.code)}</code></td><td>${esc(i.artifact.type)} ${esc(i.artifact.name)}${i.ref?.member ? `.${esc(i.ref.member)}` : ''}</td><td><code>${esc(i.path ?? '')}</code></td><td>${esc(i.message)}${i.fix ? `<br><small>fix: ${esc(i.fix)}</small>` : ''}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p>No issue was left.</p>';
  const failed = a.assertions.filter((x) => outcomeOf(x) === 'fail');
  const skipped = a.assertions.filter((x) => outcomeOf(x) === 'skipped').length;
  // A long list of failures starts folded: the reason says it.
  const assertions = failed.length
    ? `<details class="assertions"${failed.length <= OPEN_ASSERTIONS ? ' open' : ''}><summary>${failed.length} failed assertion${failed.length === 1 ? '' : 's'} of ${a.assertions.length}${skipped ? `, ${skipped} could not run` : ''}, with what was seen</summary><table class="assertions"><thead><tr><th>assertion</th><th>evidence</th></tr></thead><tbody>${failed
        .map(
          (x) =>
            `<tr><td>${esc(x.kind)}${x.role ? ` <code>${esc(x.role)}</code>` : ''}</td><td><code class="evidence">${esc(JSON.stringify(x.evidence))}</code></td></tr>`,
        )
        .join('')}</tbody></table></details>`
    : '';
  const rounds = a.rounds.length
    ? `<table class="rounds"><thead><tr><th class="num">round</th><th>kind</th><th class="num">errors</th><th class="num">warnings</th><th class="num">auto-fixed</th><th>stop</th></tr></thead><tbody>${a.rounds
        .map(
          (r) =>
            `<tr><td class="num">${r.round}</td><td>${esc(r.kind)}</td><td class="num" title="${esc(r.errors.join(' '))}">${r.errors.length}</td><td class="num">${r.warnings.length}</td><td class="num">${r.fixes}</td><td>${esc(r.stopReason ?? '')}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '';
  const evidence = a.evidence ? `<details><summary>all evidence</summary><pre>${esc(JSON.stringify(a.evidence, null, 2))}</pre></details>` : '';
  const page = href ? ` · <a class="attempt-page" href="${esc(href(a))}">the attempt's page</a>` : '';
  return `<section class="failure" data-case="${esc(a.case)}" data-variant="${esc(a.variant)}" data-prompt="${esc(a.prompt)}" data-subject="${esc(a.subject)}" data-epoch="${a.epoch}">
<h3>${esc(a.case)} / ${esc(a.variant)}${a.prompt !== DEFAULT_PROMPT ? ` ~${esc(a.prompt)}` : ''} #${a.epoch} @ ${esc(a.subject)} — <span class="${a.status}">${esc(a.status)}</span></h3>
<p>${esc(a.failureReason ?? '')}</p>
<p class="meta">stop reason ${esc(a.stopReason ?? '–')} · repair rounds ${a.repairRounds ?? '–'} · ${duration(a.latencyMs)} · ${count(a.tokensIn + a.tokensOut)} tokens · ${usd(a.costUsd)} · worker ${esc(a.worker)}${page}</p>
<h4>Issues left</h4>${issues}${assertions}${rounds ? `<h4>Rounds</h4>${rounds}` : ''}${evidence}
</section>`;
}

/**
 * The eval report as one self-contained HTML page (pure: no script, no external resource): the
 * batch and its totals (tokens and cost too), the subjects side by side when it ran a matrix, the
 * pass rate over the last batches as an inline SVG chart, the comparison with the baseline (like
 * with like, saying what was left out), a row per entry, spend per case, and each attempt that did
 * not pass unexpectedly with its reason, the issues left, the failed assertions with their evidence
 * and its rounds. `attemptHref` links each attempt to its own page (see renderAttemptPage).
 */
export function renderEvalReport(input: EvalReportInput, options: { readonly attemptHref?: (a: StoredAttempt) => string } = {}): string {
  const { batch: b, summary: s, comparison: c } = input;
  const href = options.attemptHref;
  const show = { prompts: s.entries.some((e) => e.prompt !== DEFAULT_PROMPT), subjects: s.subjects.length > 1 };
  const failures = input.attempts.filter((a) => a.status !== 'pass' && a.expected !== 'fail');
  const expectedFailures = input.attempts.filter((a) => a.status !== 'pass' && a.expected === 'fail');
  const tile = (label: string, value: string, cls = '') => `<div class="tile ${cls}"><b>${esc(value)}</b>${esc(label)}</div>`;
  const change = (x: Comparison['regressed'][number]) =>
    `<li><code>${esc(x.case)}/${esc(entryLabel(x, show))}</code> ${percent(x.before)} → ${percent(x.after)}${x.versionChanged ? ' (the case changed)' : ''}</li>`;
  const baseline =
    c === null
      ? '<p>No baseline: no earlier finished batch of this suite and its defect sets ran these subjects.</p>'
      : `<p>Against batch ${c.batch}, like with like over ${c.compared} entr${c.compared === 1 ? 'y' : 'ies'} (pass rate ${percent(c.passRate)} → ${percent(c.currentPassRate)}).</p>
${c.unlike.length ? `<ul class="unlike">${c.unlike.map((u) => `<li>${esc(u)}</li>`).join('')}</ul>` : ''}
<p><b>Regressed (${c.regressed.length})</b></p>${c.regressed.length ? `<ul class="regressed">${c.regressed.map(change).join('')}</ul>` : '<p class="regressed">none</p>'}
${c.improved.length ? `<p><b>Improved (${c.improved.length})</b></p><ul class="improved">${c.improved.map(change).join('')}</ul>` : ''}`;
  const k = s.epochs > 1;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>bvl eval — batch ${b.id}</title><style>${REPORT_CSS}</style></head>
<body>
<h1>bvl eval — batch ${b.id}</h1>
<p class="meta">agent <b>${esc(b.agent)}</b>${b.model ? ` · model ${esc(b.model)}` : ''}${b.endpoint ? ` · ${esc(b.endpoint)}` : ''} · suite ${esc(b.suite)}${b.defects ? ` · defect sets ${esc(b.defects)}` : ''}${b.judge ? ` · judge ${esc(b.judge)}` : ''}${b.gitCommit ? ` · commit <code>${esc(b.gitCommit.slice(0, 12))}</code>` : ''} · started ${esc(b.createdAt)}${b.finishedAt ? ` · finished ${esc(b.finishedAt)}` : ' · not finished'}</p>
<div class="tiles">${tile('pass', String(s.pass), 'pass')}${tile('fail', String(s.fail), 'fail')}${s.expectedFail ? tile('of them expected', String(s.expectedFail), 'expected') : ''}${tile('error', String(s.error), 'error')}${tile('limit', String(s.limit), 'limit')}${tile('pass rate', percent(s.passRate))}${k ? `${tile(`pass@${s.epochs}`, percent(s.passAtK))}${tile(`pass^${s.epochs}`, percent(s.passHatK))}` : ''}${tile('attempts', `${s.attempts}/${s.planned}`)}${s.meanLatencyMs !== null ? tile('per attempt', duration(s.meanLatencyMs)) : ''}${tile('tokens', count(s.tokensIn + s.tokensOut))}${tile('cost', usd(s.costUsd))}${s.judgeCostUsd > 0 ? tile('judge cost', usd(s.judgeCostUsd)) : ''}</div>
${s.subjects.length > 1 ? `<h2>Subjects side by side</h2>\n${subjectsTable(s)}` : ''}
<h2>Pass rate over the last ${input.history.length} batch${input.history.length === 1 ? '' : 'es'}</h2>
${passRateChart(input.history, { current: b.id })}
<h2>Baseline</h2>
${baseline}
<h2>Cases</h2>
<table class="cases"><thead><tr><th>case</th><th>variant</th><th>status</th><th class="num">passes</th><th class="num">pass@1</th>${k ? `<th class="num">pass@${s.epochs}</th><th class="num">pass^${s.epochs}</th>` : ''}<th class="num">rounds</th><th class="num">tokens</th><th class="num">cost</th><th class="num">latency</th><th>attempts</th></tr></thead><tbody>
${entryRows(s, input.attempts, show, href)}
</tbody></table>
<h2>Spend per case</h2>
${caseSpendTable(s)}
<h2>Failures (${failures.length})</h2>
${failures.length ? failures.map((a) => failureSection(a, href)).join('\n') : '<p>No attempt failed unexpectedly.</p>'}
${expectedFailures.length ? `<h2>Expected failures (${expectedFailures.length})</h2>\n<p class="meta">Defect sets the case expects this agent not to repair (by design). Each attempt's page has the details.</p><ul class="expected-failures">${expectedFailures.map((a) => `<li>${href ? `<a href="${esc(href(a))}">` : ''}${esc(a.case)}/${esc(a.variant)} #${a.epoch} @ ${esc(a.subject)}${href ? '</a>' : ''}: ${esc(a.failureReason ?? '')}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}
