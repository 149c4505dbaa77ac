import type { BuildCard, CardLayer } from './build-card.ts';

const MARK: Record<CardLayer['status'], string> = { pass: '✓', warn: '✓', fail: '✗', skip: '–' };

/** The card as one line: `✓ structure · ✓ renders · ✓ 12 rows · ✓ 3/3 widgets return data · ⚠ 2 warnings`. */
export function formatCardLine(card: BuildCard): string {
  const parts = (['structure', 'renders', 'rows', 'widgets'] as const).map((k) => {
    const l = card.layers[k];
    const n = l.status === 'fail' && (k === 'structure' || k === 'renders') ? ` (${l.errors} error${l.errors === 1 ? '' : 's'})` : '';
    return `${MARK[l.status]} ${l.label}${n}`;
  });
  if (card.warnings > 0) parts.push(`⚠ ${card.warnings} warning${card.warnings === 1 ? '' : 's'}`);
  return parts.join(' · ');
}

/** The card as terminal text: the line, then the session's rounds and the issues grouped by artifact. */
export function formatCardText(card: BuildCard): string {
  const lines = [formatCardLine(card)];
  if (card.session) {
    const s = card.session;
    lines.push(`session ${s.id} (${s.status}${s.stopReason ? `: ${s.stopReason}` : ''}) — ${s.goal}`);
    for (const r of s.rounds)
      lines.push(
        `  round ${r.round} ${r.kind}: ${r.errors} error(s), ${r.warnings} warning(s); fixed ${r.fixed}, new ${r.new}, reappeared ${r.reappeared}${r.autoFixed ? `, auto-fixed ${r.autoFixed}` : ''}${r.stopReason ? ` → ${r.stopReason}` : ''}`,
      );
  }
  for (const g of card.byArtifact) {
    lines.push(`${g.artifact.type} ${g.artifact.name}`);
    for (const i of g.issues) lines.push(`  ${i.severity === 'error' ? '✗' : '⚠'} ${i.code}${i.path ? ` ${i.path}` : ''}: ${i.message}`);
  }
  return `${lines.join('\n')}\n`;
}
