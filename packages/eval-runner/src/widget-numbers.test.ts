import { describe, expect, it } from 'vitest';
import { MAX_MISSING, rowsAgree, widgetNumbers } from './widget-numbers.ts';

// What a rendered widget shows, read from its HTML (happy-dom), against the rows its query returned.
const table = (cells: string[][]) =>
  `<figure class="bvl-chart"><table><thead><tr><th scope="col">status</th><th scope="col">n</th></tr></thead><tbody>${cells
    .map(([d, v]) => `<tr><th scope="row">${d}</th><td>${v}</td></tr>`)
    .join('')}</tbody></table></figure>`;

describe('widgetNumbers', () => {
  it('finds every measure value of every row among the widget’s cells, as numbers', () => {
    const rows = [
      { status: 'open', n: '12.50' },
      { status: 'done', n: 3 },
    ];
    expect(
      widgetNumbers(
        table([
          ['open', '12.5'],
          ['done', '3'],
        ]),
        rows,
        ['n'],
      ),
    ).toEqual({ checked: 2, missing: [], missingCount: 0 });
  });

  it('names the values a widget does not show: another measure drawn, a row dropped, a value swapped with a label', () => {
    const rows = [
      { status: 'open', n: 7 },
      { status: 'done', n: 3 },
    ];
    expect(widgetNumbers(table([['open', '7']]), rows, ['n'])).toEqual({ checked: 2, missing: ['n=3 (row 2)'], missingCount: 1 });
    // A dimension cell holding the number does not count: measures are shown in data cells.
    expect(
      widgetNumbers(
        table([
          ['3', ''],
          ['7', ''],
        ]),
        rows,
        ['n'],
      ).missingCount,
    ).toBe(2);
    expect(widgetNumbers('<p class="bvl-no-data">No data to show.</p>', rows, ['n']).missing).toEqual(['n=7 (row 1)', 'n=3 (row 2)']);
  });

  it('a metric shows its first row; nulls are not checked; the list of misses is bounded', () => {
    const metric = '<figure class="bvl-metric"><figcaption>Open</figcaption><data value="42">42</data></figure>';
    expect(widgetNumbers(metric, [{ n: 42 }, { n: 99 }], ['n'])).toEqual({ checked: 1, missing: [], missingCount: 0 });
    expect(widgetNumbers(metric, [{ n: null }], ['n'])).toEqual({ checked: 0, missing: [], missingCount: 0 });
    const many = Array.from({ length: 20 }, (_, i) => ({ n: i + 100 }));
    const r = widgetNumbers(table([]), many, ['n']);
    expect(r).toMatchObject({ checked: 20, missingCount: 20 });
    expect(r.missing).toHaveLength(MAX_MISSING);
  });
});

describe('rowsAgree', () => {
  it('compares measure values as multisets of numbers, whatever the order, the labels or the number type', () => {
    expect(
      rowsAgree(
        [
          { s: 'a', n: 1 },
          { s: 'b', n: 2 },
        ],
        [
          { s: 'B', n: '2' },
          { s: 'A', n: '1' },
        ],
        ['n'],
      ),
    ).toEqual([]);
    expect(rowsAgree([{ n: 1 }], [{ n: 1 }, { n: 0 }], ['n'])).toEqual(['1 row(s) here, 2 there', 'n: [1] here, [0, 1] there']);
    expect(rowsAgree([{ n: 1.0000001 }], [{ n: 1 }], ['n'])).toEqual([]);
  });
});
