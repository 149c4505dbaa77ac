import type { FixSafety, JsonPatchOp } from '@bvl/build-issue';
import { clearWinner, didYouMean, editDistance, type Graph, PLATFORM_OBJECTS } from '@bvl/metadata';

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

const PLATFORM_STYLE = /^(sys|cloud|ai)_/;

/**
 * What a missing object name could have meant: the "(…)" clause of its message and the suggestion
 * candidates. The clause lists the stack's own objects, and the platform objects as well when the
 * name is platform-style (`sys_`, `cloud_`, `ai_`) or the stack declares none (closest first); the
 * candidates are both, so `user` suggests `sys_user`.
 */
export function objectChoices(graph: Graph, missing: string): { clause: string; candidates: string[] } {
  const declared = [...graph.objects.values()].filter((o) => !o.platform).map((o) => o.name);
  const platform = PLATFORM_OBJECTS.map((o) => o.name);
  const own = declared.length ? `objects: ${listing(declared)}` : 'the stack declares no object';
  if (!PLATFORM_STYLE.test(missing) && declared.length > 0) return { clause: own, candidates: [...declared, ...platform] };
  const lower = missing.toLowerCase();
  const closest = platform
    .map((name) => ({ name, d: editDistance(lower, name, 64) }))
    .sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : 1))
    .map((x) => x.name);
  return { clause: `${own}; platform objects: ${listing(closest)}`, candidates: [...declared, ...platform] };
}
