import { makeIssue } from '@bvl/build-issue';
import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { buildCard } from './build-card.ts';
import { formatCardLine, formatCardText } from './format-card-text.ts';
import { renderCardHtml } from './render-card-html.ts';

const checked = { objects: 3, views: 5, dashboards: 1, widgets: 3, datasets: 1, apps: 1, seeds: 3 };
const measure = makeIssue({
  code: 'unknown_measure',
  artifact: { type: 'dashboard', name: '<script>alert(1)</script>' },
  message: 'Widget "total" asks for measure "amount" & more',
  path: '/widgets/0/values/0',
});
const warning = makeIssue({ code: 'count_only_table', artifact: { type: 'dashboard', name: 'd' }, message: 'one row' });
const empty = makeIssue({
  code: 'empty_query',
  artifact: { type: 'dashboard', name: 'd' },
  ref: { type: 'dashboard', name: 'd', member: 'w1' },
  message: 'no rows',
});

describe('the build-health card', () => {
  it('reads as one line: layers, rows, widgets returning data, warnings', () => {
    const card = buildCard({ issues: [warning], checked, probes: { issues: [], rows: 12, widgets: { checked: 3, total: 3 } } });
    expect(formatCardLine(card)).toBe('✓ structure · ✓ renders · ✓ 12 rows · ✓ 3/3 widgets return data · ⚠ 1 warning');
    expect(card).toMatchObject({ ok: true, publishable: true, published: true });
  });

  it('marks failing layers, unpublished runtime layers, and widgets that return nothing', () => {
    expect(formatCardLine(buildCard({ issues: [measure], checked }))).toBe(
      '✗ structure (1 error) · ✓ renders · – rows (not published) · – widgets (not published)',
    );
    const live = buildCard({ issues: [], checked, probes: { issues: [empty], rows: 2, widgets: { checked: 3, total: 4 } } });
    expect(formatCardLine(live)).toBe('✓ structure · ✓ renders · ✓ 2 rows · ✗ 2/4 widgets return data');
    expect(live).toMatchObject({ ok: false, publishable: true });
    expect(formatCardText(live)).toContain('dashboard d\n  ✗ empty_query: no rows');
  });

  it('renders a self-contained page a person can read, with every value escaped', () => {
    const html = renderCardHtml(
      buildCard({
        issues: [measure],
        checked,
        session: {
          id: 's1',
          goal: 'Track <expenses>',
          status: 'stopped',
          stopReason: 'max_rounds',
          rounds: [{ round: 0, kind: 'verify', errors: 1, warnings: 0, fixed: 0, new: 1, reappeared: 0, autoFixed: 0 }],
        },
      }),
    );
    expect(html).not.toMatch(/<script>|src=|href=/);
    const { document } = new Window();
    document.write(html);
    expect(document.querySelector('[data-verdict]')?.textContent).toBe('Not publishable: fix the errors below');
    expect(document.querySelector('[data-layer="structure"]')?.getAttribute('data-status')).toBe('fail');
    expect(document.querySelector('.artifact h3 code')?.textContent).toBe('<script>alert(1)</script>');
    expect(document.querySelectorAll('.rounds tbody tr')).toHaveLength(1);
  });
});
