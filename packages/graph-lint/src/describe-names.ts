import type { FixSafety, JsonPatchOp } from '@bvl/build-issue';
import { clearWinner, didYouMean } from '@bvl/metadata';

const MAX_LISTED = 12;

/** "a, b, c" — or "a, b, … and 14 more" — or "none", for "(it has: …)" clauses. */
export function listing(names: Iterable<string>): string {
  const all = [...names];
  if (all.length === 0) return 'none';
  const shown = all.slice(0, MAX_LISTED).join(', ');
  return all.length > MAX_LISTED ? `${shown}, … and ${all.length - MAX_LISTED} more` : shown;
}

/** Quotes a possibly huge or hostile name for a message. */
export function q(name: unknown): string {
  const s = typeof name === 'string' ? name : (JSON.stringify(name) ?? String(name));
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}…` : s);
}

/**
 * Suggestions and a `replace` patch at `path`: `safe` when exactly one candidate is clearly right,
 * `unsafe` (the best guess) when several are as close, so a fixer applies it only when told to.
 */
export function suggest(
  name: string,
  candidates: Iterable<string>,
  path: string | undefined,
): { suggestions?: string[]; patch?: JsonPatchOp[]; fixSafety?: FixSafety } {
  const list = [...candidates];
  const suggestions = didYouMean(name, list);
  if (suggestions.length === 0) return {};
  if (path === undefined) return { suggestions };
  const winner = clearWinner(name, list);
  return { suggestions, patch: [{ op: 'replace', path, value: winner ?? suggestions[0]! }], fixSafety: winner !== undefined ? 'safe' : 'unsafe' };
}

/** " Did you mean "x"?" or "". */
export function didYouMeanText(suggestions: readonly string[] | undefined): string {
  return suggestions?.length ? ` Did you mean ${suggestions.map((s) => q(s)).join(' or ')}?` : '';
}
