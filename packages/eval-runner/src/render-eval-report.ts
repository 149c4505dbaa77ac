import { escapeHtml as esc } from '@bvl/render-contract';
import type { Comparison } from './compare-batches.ts';
import { duration, entryStatus, percent } from './format-eval-summary.ts';
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

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#111}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}.meta{color:#555}
.tiles{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0}.tile{border:1px solid #e5e7eb;border-radius:8px;padding:8px 14px;min-width:90px}
.tile b{display:block;font-size:20px}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{border-bottom:1px solid #eee;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f9fafb;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#15803d}.fail{color:#b91c1c}.error{color:#b45309}.limit{color:#6d28d9}.mixed{color:#a16207}
.failure{border:1px solid #fecaca;border-radius:8px;padding:4px 14px 10px;margin:12px 0}
pre{background:#f6f8fa;padding:8px;border-radius:6px;overflow:auto;max-height:320px;font-size:12px}
code{font-size:12.5px}code.evidence{white-space:pre-wrap;word-break:break-word;font-size:12px;color:#374151}details summary{cursor:pointer;color:#1d4ed8}
`;

/** Failed assertions shown unfolded at most. */
const OPEN_ASSERTIONS = 5;

const MARK: Record<string, string> = { pass: '✓ pass', fail: '✗ fail', error: '! error', limit: '⧗ limit', mixed: '~ mixed', pending: '· pending' };

function entryRows(s: BatchSummary, attempts: readonly StoredAttempt[]): string {
  const k = s.epochs > 1;
  return s.entries
    .map((e) => {
      const st = entryStatus(e);
      const runs = attempts.filter((a) => a.case === e.case && a.variant === e.variant);
      const latency = runs.length ? runs.reduce((n, a) => n + a.latencyMs, 0) / runs.length : null;
      const rounds = runs.filter((a) => a.repairRounds !== null).map((a) => a.repairRounds as number);
      return `<tr class="entry" data-case="${esc(e.case)}" data-variant="${esc(e.variant)}" data-status="${st}"><td>${esc(e.case)}</td><td>${esc(e.variant)}</td><td class="${st}">${MARK[st]}</td><td class="num">${e.pass}/${e.attempts}</td><td class="num">${percent(e.passAt1)}</td>${k ? `<td class="num">${percent(e.passAtK)}</td><td class="num">${percent(e.passHatK)}</td>` : ''}<td class="num">${rounds.length ? Math.max(...rounds) : '–'}</td><td class="num">${latency === null ? '–' : duration(latency)}</td></tr>`;
    })
    .join('\n');
}

function failureSection(a: StoredAttempt): string {
  const issues = a.issues.length
    ? `<table class="issues"><tr><th>severity</th><th>code</th><th>artifact</th><th>path</th><th>message</th></tr>${a.issues
        .map(
          (i) =>
            `<tr><td class="${i.severity === 'error' ? 'fail' : 'mixed'}">${esc(i.severity)}</td><td><code>${esc(i.code)}</code></td><td>${esc(i.artifact.type)} ${esc(i.artifact.name)}${i.ref?.member ? `.${esc(i.ref.member)}` : ''}</td><td><code>${esc(i.path ?? '')}</code></td><td>${esc(i.message)}${i.fix ? `<br><small>fix: ${esc(i.fix)}</small>` : ''}</td></tr>`,
        )
        .join('')}</table>`
    : '<p>No issue was left.</p>';
  const failed = a.assertions.filter((x) => !x.pass);
  // Many failures (an unpublished build fails nearly every assertion) start folded: the reason says it.
  const assertions = failed.length
    ? `<details class="assertions"${failed.length <= OPEN_ASSERTIONS ? ' open' : ''}><summary>${failed.length} failed assertion${failed.length === 1 ? '' : 's'} of ${a.assertions.length}, with what was seen</summary><table class="assertions"><tr><th>assertion</th><th>evidence</th></tr>${failed
        .map(
          (x) =>
            `<tr><td>${esc(x.kind)}${x.role ? ` <code>${esc(x.role)}</code>` : ''}</td><td><code class="evidence">${esc(JSON.stringify(x.evidence))}</code></td></tr>`,
        )
        .join('')}</table></details>`
    : '';
  const rounds = a.rounds.length
    ? `<table class="rounds"><tr><th>round</th><th>kind</th><th>errors</th><th>warnings</th><th>auto-fixed</th><th>stop</th></tr>${a.rounds
        .map(
          (r) =>
            `<tr><td class="num">${r.round}</td><td>${esc(r.kind)}</td><td class="num" title="${esc(r.errors.join(' '))}">${r.errors.length}</td><td class="num">${r.warnings.length}</td><td class="num">${r.fixes}</td><td>${esc(r.stopReason ?? '')}</td></tr>`,
        )
        .join('')}</table>`
    : '';
  const evidence = a.evidence ? `<details><summary>all evidence</summary><pre>${esc(JSON.stringify(a.evidence, null, 2))}</pre></details>` : '';
  return `<section class="failure" data-case="${esc(a.case)}" data-variant="${esc(a.variant)}" data-epoch="${a.epoch}">
<h3>${esc(a.case)} / ${esc(a.variant)} #${a.epoch} — <span class="${a.status}">${esc(a.status)}</span></h3>
<p>${esc(a.failureReason ?? '')}</p>
<p class="meta">stop reason ${esc(a.stopReason ?? '–')} · repair rounds ${a.repairRounds ?? '–'} · ${duration(a.latencyMs)} · worker ${esc(a.worker)}</p>
<h4>Issues left</h4>${issues}${assertions}${rounds ? `<h4>Rounds</h4>${rounds}` : ''}${evidence}
</section>`;
}

/**
 * The eval report as one self-contained HTML page (pure: no script, no external resource): the
 * batch and its totals, the pass rate over the last batches as an inline SVG chart, the comparison
 * with the baseline, a row per entry (case × variant), and each attempt that did not pass with its
 * reason, the issues left, the failed assertions with their evidence and the session's rounds.
 */
export function renderEvalReport(input: EvalReportInput): string {
  const { batch: b, summary: s, comparison: c } = input;
  const failures = input.attempts.filter((a) => a.status !== 'pass');
  const tile = (label: string, value: string, cls = '') => `<div class="tile ${cls}"><b>${esc(value)}</b>${esc(label)}</div>`;
  const change = (x: Comparison['regressed'][number]) =>
    `<li><code>${esc(x.case)}/${esc(x.variant)}</code> ${percent(x.before)} → ${percent(x.after)}${x.versionChanged ? ' (the case changed)' : ''}</li>`;
  const baseline =
    c === null
      ? '<p>No baseline: this is the first batch of this suite and agent.</p>'
      : `<p>Against batch ${c.batch} (pass rate ${percent(c.passRate)} → ${percent(s.passRate)}).</p>
<p><b>Regressed (${c.regressed.length})</b></p>${c.regressed.length ? `<ul class="regressed">${c.regressed.map(change).join('')}</ul>` : '<p class="regressed">none</p>'}
${c.improved.length ? `<p><b>Improved (${c.improved.length})</b></p><ul class="improved">${c.improved.map(change).join('')}</ul>` : ''}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>bvl eval — batch ${b.id}</title><style>${CSS}</style></head>
<body>
<h1>bvl eval — batch ${b.id}</h1>
<p class="meta">agent <b>${esc(b.agent)}</b>${b.model ? ` · model ${esc(b.model)}` : ''}${b.endpoint ? ` · ${esc(b.endpoint)}` : ''} · suite ${esc(b.suite)}${b.gitCommit ? ` · commit <code>${esc(b.gitCommit.slice(0, 12))}</code>` : ''} · started ${esc(b.createdAt)}${b.finishedAt ? ` · finished ${esc(b.finishedAt)}` : ' · not finished'}</p>
<div class="tiles">${tile('pass', String(s.pass), 'pass')}${tile('fail', String(s.fail), 'fail')}${tile('error', String(s.error), 'error')}${tile('limit', String(s.limit), 'limit')}${tile('pass rate', percent(s.passRate))}${s.epochs > 1 ? `${tile(`pass@${s.epochs}`, percent(s.passAtK))}${tile(`pass^${s.epochs}`, percent(s.passHatK))}` : ''}${tile('attempts', `${s.attempts}/${s.planned}`)}${s.meanLatencyMs !== null ? tile('per attempt', duration(s.meanLatencyMs)) : ''}</div>
<h2>Pass rate over the last ${input.history.length} batch${input.history.length === 1 ? '' : 'es'}</h2>
${passRateChart(input.history, { current: b.id })}
<h2>Baseline</h2>
${baseline}
<h2>Cases</h2>
<table class="cases"><tr><th>case</th><th>variant</th><th>status</th><th>passes</th><th>pass@1</th>${s.epochs > 1 ? `<th>pass@${s.epochs}</th><th>pass^${s.epochs}</th>` : ''}<th>rounds</th><th>latency</th></tr>
${entryRows(s, input.attempts)}
</table>
<h2>Failures (${failures.length})</h2>
${failures.length ? failures.map(failureSection).join('\n') : '<p>Every attempt passed.</p>'}
</body></html>
`;
}
