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
