/** Lowercase words of a name or label: `exp_expenseReport` → exp, expense, report. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** Whether `word` is `term` or a plural of it (`ticket`/`tickets`, `category`/`categories`, `box`/`boxes`). */
function sameWord(word: string, term: string): boolean {
  return word === term || word === `${term}s` || word === `${term}es` || (term.endsWith('y') && word === `${term.slice(0, -1)}ies`);
}

/** Whether the words of `term` (one or more) occur consecutively in `ws`. */
function hasTerm(ws: readonly string[], term: string): boolean {
  const t = words(term);
  if (t.length === 0) return false;
  for (let i = 0; i + t.length <= ws.length; i++) if (t.every((tw, j) => sameWord(ws[i + j]!, tw))) return true;
  return false;
}

/**
 * Whether an artifact plays a role: some text of it (name, label, …) contains one of the role's
 * `match` terms as whole words (a plural counts: `candidate` matches "Candidates" and
 * `rec_candidate`), and none of its `exclude` terms. Whole words, so `lead` never matches "leader".
 */
export function matchRole(texts: ReadonlyArray<string | undefined>, match: readonly string[], exclude: readonly string[] = []): boolean {
  const ws = texts.filter((t): t is string => typeof t === 'string').map(words);
  const any = (terms: readonly string[]) => terms.some((term) => ws.some((w) => hasTerm(w, term)));
  return any(match) && !any(exclude);
}
