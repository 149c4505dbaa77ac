import { escapeHtml } from '@bvl/render-contract';
import type { BuildCard, CardLayer } from './build-card.ts';

const MARK: Record<CardLayer['status'], string> = { pass: '✓', warn: '✓', fail: '✗', skip: '–' };

const STYLE = `body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#1f2328;max-width:960px}
h1{font-size:1.3rem;margin:0 0 .5rem}h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
.layers{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0;padding:0;list-style:none}
.layer{padding:.35rem .7rem;border-radius:6px;border:1px solid #d0d7de}
.pass,.warn{background:#dafbe1;border-color:#4ac26b}.fail{background:#ffebe9;border-color:#ff8182}.skip{background:#f6f8fa;color:#57606a}
.warnings{background:#fff8c5;border-color:#d4a72c}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #d0d7de;vertical-align:top}
.sev-error{color:#cf222e;font-weight:600}.sev-warning{color:#9a6700;font-weight:600}code{font:12px ui-monospace,monospace;background:#f6f8fa;padding:0 .2rem}
.verdict{font-size:1.1rem;font-weight:600}.ok{color:#1a7f37}.bad{color:#cf222e}`;

/** The card as a self-contained HTML page (no external assets; every value escaped). */
export function renderCardHtml(card: BuildCard, title = 'Build health'): string {
  const layer = (k: keyof BuildCard['layers']) => {
    const l = card.layers[k];
    return `<li class="layer ${l.status}" data-layer="${k}" data-status="${l.status}">${MARK[l.status]} ${escapeHtml(l.label)}${l.errors > 0 ? ` (${l.errors} error${l.errors === 1 ? '' : 's'})` : ''}</li>`;
  };
  const verdict = card.ok
    ? card.published
      ? 'Published and healthy'
      : 'Ready to publish'
    : card.publishable
      ? 'Publishable, with runtime errors'
      : 'Not publishable: fix the errors below';
  const parts = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="verdict ${card.ok ? 'ok' : 'bad'}" data-verdict>${escapeHtml(verdict)}</p>`,
    `<ul class="layers">${layer('structure')}${layer('renders')}${layer('rows')}${layer('widgets')}${card.warnings > 0 ? `<li class="layer warnings" data-layer="warnings">⚠ ${card.warnings} warning${card.warnings === 1 ? '' : 's'}</li>` : ''}</ul>`,
  ];
  if (card.session) {
    const s = card.session;
    parts.push(
      `<h2>Session</h2><p>${escapeHtml(s.goal)} — <strong>${escapeHtml(s.status)}${s.stopReason ? `: ${escapeHtml(s.stopReason)}` : ''}</strong></p>`,
      '<table class="rounds"><thead><tr><th>Round</th><th>Kind</th><th>Errors</th><th>Warnings</th><th>Fixed</th><th>New</th><th>Reappeared</th><th>Auto-fixed</th><th>Stop</th></tr></thead><tbody>',
      ...s.rounds.map(
        (r) =>
          `<tr><td>${r.round}</td><td>${r.kind}</td><td>${r.errors}</td><td>${r.warnings}</td><td>${r.fixed}</td><td>${r.new}</td><td>${r.reappeared}</td><td>${r.autoFixed}</td><td>${escapeHtml(r.stopReason ?? '')}</td></tr>`,
      ),
      '</tbody></table>',
    );
  }
  parts.push(`<h2>Issues</h2>`);
  if (card.byArtifact.length === 0) parts.push('<p class="none">No issues.</p>');
  for (const g of card.byArtifact) {
    parts.push(
      `<section class="artifact"><h3>${escapeHtml(g.artifact.type)} <code>${escapeHtml(g.artifact.name)}</code></h3><table><tbody>`,
      ...g.issues.map(
        (i) =>
          `<tr class="issue"><td class="sev-${i.severity}">${i.severity}</td><td><code>${escapeHtml(i.code)}</code>${i.path ? `<br><code>${escapeHtml(i.path)}</code>` : ''}</td><td>${escapeHtml(i.message)}${i.fix ? `<br><em>${escapeHtml(i.fix)}</em>` : ''}</td></tr>`,
      ),
      '</tbody></table></section>',
    );
  }
  parts.push('</body></html>\n');
  return parts.join('\n');
}
