/**
 * A 32-bit hash of a key's text (FNV-1a over its UTF-16 code units): what a streamed lint keeps of
 * a stored seed's keys to find the keys more than one record has (see SeedPassContext.repeated)
 * — 4 bytes a record while it reads them, instead of every key held in a Map. Two keys that hash
 * alike are only candidates: the rule settles them on the keys themselves.
 */
export function keyHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The hashes that occur more than once among `hashes` (sorted in place). */
export function repeatedHashes(hashes: Uint32Array): Set<number> {
  hashes.sort();
  const out = new Set<number>();
  for (let i = 1; i < hashes.length; i++) if (hashes[i] === hashes[i - 1]) out.add(hashes[i]!);
  return out;
}

/**
 * A second 32-bit hash of a key's text, unlike {@link keyHash} (a multiply-xorshift over its UTF-16
 * code units): with it, two keys are alike only if both hashes are — at a million keys about one
 * chance in ten million that two different keys are, where keyHash alone gives about a hundred pairs.
 */
export function keyHash2(text: string): number {
  let h = 0x9e3779b9 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The {@link keyHash}es of the keys that occur more than once among `n` keys hashed both ways
 * (`first[i]`, `second[i]` the i-th key's {@link keyHash} and {@link keyHash2}; neither changed):
 * a key's keyHash when another key has both of its hashes. Every key two records share is among
 * them; an empty set says no two keys are alike.
 */
export function repeatedPairs(first: Uint32Array, second: Uint32Array, n: number): Set<number> {
  const candidates = repeatedHashes(first.slice(0, n));
  const out = new Set<number>();
  if (candidates.size === 0) return out;
  const seen = new Map<number, Set<number>>();
  for (let i = 0; i < n; i++) {
    const h = first[i]!;
    if (!candidates.has(h)) continue;
    let seconds = seen.get(h);
    if (!seconds) seen.set(h, (seconds = new Set()));
    if (seconds.has(second[i]!)) out.add(h);
    else seconds.add(second[i]!);
  }
  return out;
}
