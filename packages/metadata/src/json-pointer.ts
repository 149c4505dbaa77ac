const escapeSegment = (s: string | number): string => {
  if (typeof s === 'number') return String(s);
  return s.includes('~') || s.includes('/') ? s.replaceAll('~', '~0').replaceAll('/', '~1') : s;
};

/** Builds an RFC 6901 JSON pointer from raw segments, escaping `~` and `/`. */
export function pointer(...segments: ReadonlyArray<string | number>): string {
  let out = '';
  for (const s of segments) out += `/${escapeSegment(s)}`;
  return out;
}

/** Joins a base pointer and more raw segments. */
export function childPointer(base: string, ...segments: ReadonlyArray<string | number>): string {
  return base + pointer(...segments);
}
