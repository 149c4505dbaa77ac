import type { DatasetSelection } from '@bvl/render-contract';

/** Per dataset, per dimension: the option label → value map of the select field it groups by, and its date granularity. */
export type OptionLabels = ReadonlyMap<string, ReadonlyMap<string, { labels?: ReadonlyMap<string, string>; granularity?: string }>>;

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The option labels and date granularities of every dataset dimension of a stack (what normalising
 * needs), read from a stack document: ObjectStack's engine passes the stack as `defineStack`
 * returned it (options with the labels it answers with), bvl the document as written.
 */
export function optionLabels(stack: Json): OptionLabels {
  const objects = new Map<string, Json>();
  for (const o of Array.isArray(stack.objects) ? stack.objects : []) if (isRecord(o) && typeof o.name === 'string') objects.set(o.name, o);
  const out = new Map<string, Map<string, { labels?: Map<string, string>; granularity?: string }>>();
  for (const ds of Array.isArray(stack.datasets) ? stack.datasets : []) {
    if (!isRecord(ds) || typeof ds.name !== 'string') continue;
    const dims = new Map<string, { labels?: Map<string, string>; granularity?: string }>();
    const fields = typeof ds.object === 'string' && isRecord(objects.get(ds.object)?.fields) ? (objects.get(ds.object)!.fields as Json) : {};
    for (const d of Array.isArray(ds.dimensions) ? ds.dimensions : []) {
      if (!isRecord(d) || typeof d.name !== 'string') continue;
      const field = typeof d.field === 'string' ? fields[d.field] : undefined;
      const options = isRecord(field) && Array.isArray(field.options) ? field.options : [];
      const labels = new Map<string, string>();
      for (const o of options)
        if (isRecord(o) && typeof o.label === 'string' && o.value !== undefined && String(o.value) !== o.label) labels.set(o.label, String(o.value));
      dims.set(d.name, {
        ...(labels.size ? { labels } : {}),
        ...(typeof d.dateGranularity === 'string' ? { granularity: d.dateGranularity } : d.type === 'date' ? { granularity: 'day' } : {}),
      });
    }
    out.set(ds.name, dims);
  }
  return out;
}

/**
 * A widget's rows in one comparable form: per row, its dimensions then its measures in the
 * selection's order, as a JSON string; the rows sorted (the order both engines return is not
 * compared). The normalisations, each because the two engines render one value differently:
 * 1. numbers: the engine returns aggregates as strings (`"2"`, `"12.50"`, PostgreSQL's numeric
 *    through knex); both sides become numbers rounded to 6 decimals; null stays null;
 * 2. option labels: the engine answers a select dimension with the option's label (`Approved`),
 *    bvl with its stored value (`approved`); a label of that field's options maps back to its value;
 * 3. date buckets: the engine answers a month as `2026-03` (a year `2026`, a quarter `2026-Q1`, a
 *    week `2026-W45`),
 *    bvl with the bucket's first instant (a Date or an ISO string); both become the bucket's
 *    canonical text at the dimension's granularity (or the selection's `dateGranularity`); a week is
 *    named by its ISO Monday;
 * 4. lookup dimensions: the engine answers the referenced record's name, bvl its id (read back as
 *    the name on bvl's side, see bvl-engine.ts lookupNames).
 */
export function normaliseRows(
  rows: readonly Json[],
  ctx: { side: 'engine' | 'bvl'; selection: DatasetSelection; dataset: string; options: OptionLabels },
): string[] {
  const dims = ctx.selection.dimensions ?? [];
  const measures = ctx.selection.measures ?? [];
  const meta = ctx.options.get(ctx.dataset);
  return rows
    .map((row) =>
      JSON.stringify([
        ...dims.map((d) => {
          const m = meta?.get(d);
          return dimension(row[d], m?.labels, ctx.selection.dateGranularity ?? m?.granularity);
        }),
        ...measures.map((m) => number(row[m])),
      ]),
    )
    .sort();
}

function number(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  const n =
    typeof v === 'number'
      ? v
      : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
        ? Number(v)
        : typeof v === 'bigint'
          ? Number(v)
          : undefined;
  return n === undefined ? v : Math.round(n * 1e6) / 1e6;
}

function dimension(v: unknown, labels: ReadonlyMap<string, string> | undefined, granularity: string | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (granularity) {
    const b = bucket(v, granularity);
    if (b !== undefined) return b;
  }
  if (typeof v === 'string' && labels?.has(v)) return labels.get(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return v instanceof Date ? v.toISOString() : v;
}

/** A date bucket's canonical text: `2026`, `2026-Q1`, `2026-03`, `2026-03-05` (a week: its Monday's date). */
function bucket(v: unknown, granularity: string): string | undefined {
  let y: number;
  let mo: number;
  let d: number;
  if (v instanceof Date) [y, mo, d] = [v.getUTCFullYear(), v.getUTCMonth() + 1, v.getUTCDate()];
  else if (typeof v === 'string') {
    const q = /^(\d{4})-Q([1-4])$/.exec(v);
    if (q) return granularity === 'quarter' ? v : undefined;
    const w = /^(\d{4})-W(\d{2})$/.exec(v);
    if (w) return granularity === 'week' ? isoWeekMonday(Number(w[1]), Number(w[2])) : undefined;
    const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(v);
    if (!m) return undefined;
    [y, mo, d] = [Number(m[1]), Number(m[2] ?? 1), Number(m[3] ?? 1)];
    // A timestamp with a zone: read it as the instant it is.
    if (/T.*(Z|[+-]\d{2}:?\d{2})$/.test(v)) {
      const t = new Date(v);
      if (!Number.isNaN(t.getTime())) [y, mo, d] = [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()];
    }
  } else return undefined;
  const p = (n: number) => String(n).padStart(2, '0');
  if (granularity === 'week') {
    // The bucket's Monday (ISO week), whichever day of it the engine named.
    const t = new Date(Date.UTC(y, mo - 1, d));
    t.setUTCDate(t.getUTCDate() - ((t.getUTCDay() + 6) % 7));
    return t.toISOString().slice(0, 10);
  }
  switch (granularity) {
    case 'year':
      return String(y);
    case 'quarter':
      return `${y}-Q${Math.floor((mo - 1) / 3) + 1}`;
    case 'month':
      return `${y}-${p(mo)}`;
    default:
      return `${y}-${p(mo)}-${p(d)}`;
  }
}

/** The Monday of ISO week `week` of `year`, as `YYYY-MM-DD`. */
function isoWeekMonday(year: number, week: number): string {
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const monday1 = new Date(jan4);
  monday1.setUTCDate(jan4.getUTCDate() - ((jan4.getUTCDay() + 6) % 7));
  monday1.setUTCDate(monday1.getUTCDate() + (week - 1) * 7);
  return monday1.toISOString().slice(0, 10);
}
