import { escapeHtml as esc } from '@bvl/render-contract';

/** One point of the pass-rate chart: a batch and its pass rate (null when nothing was graded). */
export interface RatePoint {
  readonly batch: number;
  readonly passRate: number | null;
  readonly label?: string | undefined;
}

/**
 * The pass rate over the last batches as an inline SVG (pure, no script, no external resource): a
 * bar per batch, oldest left, the current one highlighted, a title per bar for the exact figure.
 */
export function passRateChart(
  points: readonly RatePoint[],
  options: { readonly current?: number; readonly width?: number; readonly height?: number } = {},
): string {
  const width = options.width ?? 640;
  const height = options.height ?? 180;
  const pad = { top: 12, right: 12, bottom: 28, left: 40 };
  const innerW = width - pad.left - pad.right;
  const innerH = height - pad.top - pad.bottom;
  const n = Math.max(1, points.length);
  const slot = innerW / n;
  const barW = Math.max(4, Math.min(48, slot * 0.7));
  const y = (rate: number) => pad.top + innerH * (1 - rate);
  const parts: string[] = [];
  for (const t of [0, 0.5, 1]) {
    parts.push(`<line x1="${pad.left}" x2="${width - pad.right}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${pad.left - 6}" y="${y(t) + 4}" text-anchor="end" font-size="11" fill="#666">${t * 100}%</text>`);
  }
  points.forEach((p, i) => {
    const x = pad.left + slot * i + (slot - barW) / 2;
    const current = p.batch === options.current;
    const title = `batch ${p.batch}${p.label ? ` (${p.label})` : ''}: ${p.passRate === null ? 'nothing graded' : `${(p.passRate * 100).toFixed(1)}% pass`}`;
    if (p.passRate !== null) {
      const h = Math.max(1, innerH * p.passRate);
      parts.push(
        `<rect class="bar${current ? ' current' : ''}" data-batch="${p.batch}" x="${x.toFixed(1)}" y="${(pad.top + innerH - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${current ? '#2563eb' : '#93c5fd'}"><title>${esc(title)}</title></rect>`,
      );
    }
    parts.push(`<text x="${(x + barW / 2).toFixed(1)}" y="${height - 10}" text-anchor="middle" font-size="11" fill="#444">${p.batch}</text>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" class="pass-rate-chart" role="img" aria-label="pass rate over the last ${points.length} batches" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}
