/** Builds an RFC 6901 JSON pointer from raw segments, escaping `~` and `/`. */
export function pointer(...segments: ReadonlyArray<string | number>): string {
  return segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** Joins a base pointer and more raw segments. */
export function childPointer(base: string, ...segments: ReadonlyArray<string | number>): string {
  return base + pointer(...segments);
}
