/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, so `titel` is one
 * edit from `title`), bounded: returns `limit + 1` as soon as the distance must exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Did-you-mean candidates for `name` among `candidates`, best first: case-insensitive equality,
 * then prefix/suffix containment, then small edit distance (≤ max(1, len/3)). At most `max` results.
 */
export function didYouMean(name: string, candidates: Iterable<string>, max = 3): string[] {
  if (name.length > 200) return [];
  const lower = name.toLowerCase();
  const limit = Math.max(1, Math.floor(name.length / 3));
  const scored: Array<{ c: string; score: number }> = [];
  for (const c of candidates) {
    if (c === name) continue;
    const cl = c.toLowerCase();
    let score: number;
    if (cl === lower) score = 0;
    else {
      const d = editDistance(lower, cl, limit);
      if (d <= limit) score = d;
      else if (lower.length >= 3 && (cl.includes(lower) || lower.includes(cl)) && cl.length >= 3) score = limit + 0.5;
      else continue;
    }
    scored.push({ c, score });
  }
  scored.sort((x, y) => x.score - y.score || (x.c < y.c ? -1 : x.c > y.c ? 1 : 0));
  return scored.slice(0, max).map((s) => s.c);
}

/**
 * The one candidate that is clearly right, or undefined: a single best suggestion whose score is
 * strictly better than the runner-up's (callers only attach a patch then).
 */
export function clearWinner(name: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const top = didYouMean(name, list, 2);
  if (top.length === 0) return undefined;
  if (top.length === 1) return top[0];
  const lower = name.toLowerCase();
  const d0 = editDistance(lower, top[0]!.toLowerCase());
  const d1 = editDistance(lower, top[1]!.toLowerCase());
  return d0 < d1 ? top[0] : undefined;
}
