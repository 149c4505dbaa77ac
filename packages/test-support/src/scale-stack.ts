/**
 * A stack document copied until it holds at least `artifacts` artifacts (by `count`): copy k renames
 * every name starting with `prefix` to `<prefix without its final _><k>_`, so references stay
 * consistent within a copy and no two copies collide.
 */
export function scaleStack(
  doc: Record<string, unknown>,
  prefix: string,
  artifacts: number,
  count: (doc: Record<string, unknown>) => number,
): Record<string, unknown[]> {
  const text = JSON.stringify(doc);
  const perCopy = count(doc);
  const copies = Math.max(1, Math.ceil(artifacts / perCopy));
  const pattern = new RegExp(`\\b${prefix}`, 'g');
  const stem = prefix.replace(/_$/, '');
  const out: Record<string, unknown[]> = {};
  for (let k = 0; k < copies; k++) {
    const copy = JSON.parse(text.replace(pattern, `${stem}${k}_`)) as Record<string, unknown>;
    for (const [key, value] of Object.entries(copy)) if (Array.isArray(value)) (out[key] ??= []).push(...value);
  }
  return out;
}
