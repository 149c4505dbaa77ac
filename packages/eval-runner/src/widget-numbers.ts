import { Window } from 'happy-dom';

/** What a rendered widget shows of the rows its real query returned. */
export interface WidgetNumbers {
  /** Measure values of the query's rows that the widget should show (a metric shows its first row). */
  readonly checked: number;
  /** Values it does not show, as `measure=value (row n)`, at most {@link MAX_MISSING}. */
  readonly missing: string[];
  /** How many values it does not show in all. */
  readonly missingCount: number;
}

/** Missing values named per widget at most; the rest are counted. */
export const MAX_MISSING = 5;
/** Rows of a widget's query checked at most (a table widget's rows are bounded by the query's limit already). */
export const MAX_CHECKED_ROWS = 200;

let shared: Window | undefined;
let root: ReturnType<Window['document']['createElement']> | undefined;
type Element = ReturnType<Window['document']['createElement']>;

/** The texts of a widget's data cells (`td`, `data`) and whether it is a metric (which shows one row). */
function shownTexts(html: string): { texts: Set<string>; metric: boolean } {
  shared ??= new Window({
    settings: {
      disableJavaScriptFileLoading: true,
      navigation: { disableMainFrameNavigation: true, disableChildFrameNavigation: true, disableChildPageNavigation: true },
    },
  });
  root ??= shared.document.createElement('div');
  root.innerHTML = html;
  const texts = new Set<string>();
  let metric = false;
  // One walk (not querySelectorAll: happy-dom keeps every node a selector query has seen).
  const visit = (el: Element): void => {
    const tag = el.tagName.toLowerCase();
    if (el.classList.contains('bvl-metric')) metric = true;
    if (tag === 'td' || tag === 'data') {
      texts.add((el.textContent ?? '').trim());
      if (tag === 'data') texts.add(el.getAttribute('value') ?? '');
    }
    for (const child of el.children) visit(child as unknown as Element);
  };
  for (const child of root.children) visit(child as unknown as Element);
  root.innerHTML = '';
  return { texts, metric };
}

const asNumber = (v: unknown): number | undefined => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
};

/**
 * Whether a rendered widget shows the numbers its real query returned (pure over its inputs): each
 * measure value of each row (the first row of a metric) must appear in one of the widget's data
 * cells, compared as numbers (`"12.50"` shows `12.5`). This reads the page and the rows, not the
 * translation, so a widget drawn with the wrong measure, without its rows, or with another row's
 * value is caught even when L2 accepts the schema. Null values are not checked (nothing to show).
 */
export function widgetNumbers(html: string, rows: ReadonlyArray<Readonly<Record<string, unknown>>>, measures: readonly string[]): WidgetNumbers {
  const { texts, metric } = shownTexts(html);
  const shown = new Set<number>();
  for (const t of texts) {
    const n = asNumber(t);
    if (n !== undefined) shown.add(n);
  }
  const missing: string[] = [];
  let checked = 0;
  let missingCount = 0;
  const checkedRows = (metric ? rows.slice(0, 1) : rows).slice(0, MAX_CHECKED_ROWS);
  checkedRows.forEach((row, i) => {
    for (const m of measures) {
      const v = row[m];
      if (v === null || v === undefined) continue;
      checked++;
      const n = asNumber(v);
      const ok = n !== undefined ? shown.has(n) : texts.has(String(v));
      if (ok) continue;
      missingCount++;
      if (missing.length < MAX_MISSING) missing.push(`${m}=${String(v)} (row ${i + 1})`);
    }
  });
  return { checked, missing, missingCount };
}

/**
 * Whether two answers to one widget's query agree (pure): the same number of rows, and the same
 * measure values as multisets of numbers (engines differ in order, in counts as strings, in labels
 * for dimension values — so dimensions are not compared). Returns the differences, at most {@link MAX_MISSING}.
 */
export function rowsAgree(
  ours: ReadonlyArray<Readonly<Record<string, unknown>>>,
  theirs: ReadonlyArray<Readonly<Record<string, unknown>>>,
  measures: readonly string[],
): string[] {
  const diffs: string[] = [];
  if (ours.length !== theirs.length) diffs.push(`${ours.length} row(s) here, ${theirs.length} there`);
  for (const m of measures) {
    const values = (rs: typeof ours) =>
      rs
        .map((r) => asNumber(r[m]))
        .filter((n): n is number => n !== undefined)
        .map((n) => Math.round(n * 1e6) / 1e6)
        .sort((a, b) => a - b);
    const a = values(ours);
    const b = values(theirs);
    if (a.length !== b.length || a.some((x, i) => x !== b[i])) diffs.push(`${m}: [${a.slice(0, 5).join(', ')}] here, [${b.slice(0, 5).join(', ')}] there`);
  }
  return diffs.slice(0, MAX_MISSING);
}
