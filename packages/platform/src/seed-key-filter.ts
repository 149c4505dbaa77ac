/**
 * The natural keys a seed has written so far, as a Bloom filter: a few bytes per key (never the
 * key's text or its row's id), so the writer's memory does not grow by a row's worth with each
 * record (issue 21). `mayHave` is false for a key never added, and true for every key added (and,
 * rarely, for another: about 1 in 70,000 keys at this size); a true answer is confirmed in the
 * database (the row the earlier record wrote), so a false one costs one index probe, never a
 * wrong write.
 */
export class SeedKeyFilter {
  private readonly bits: Uint32Array;
  private readonly size: number;

  /** Sized for `capacity` keys at {@link BITS_PER_KEY} bits each (at least 1 KiB). */
  constructor(capacity: number) {
    const words = Math.max(256, Math.ceil((capacity * BITS_PER_KEY) / 32));
    this.bits = new Uint32Array(words);
    this.size = words * 32;
  }

  add(key: string): void {
    const [h1, h2] = hashes(key);
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) >>> 0;
      const at = bit % this.size;
      this.bits[at >>> 5]! |= 1 << (at & 31);
    }
  }

  mayHave(key: string): boolean {
    const [h1, h2] = hashes(key);
    for (let i = 0; i < HASHES; i++) {
      const at = ((h1 + Math.imul(i, h2)) >>> 0) % this.size;
      if ((this.bits[at >>> 5]! & (1 << (at & 31))) === 0) return false;
    }
    return true;
  }

  /** Bytes the filter holds. */
  get bytes(): number {
    return this.bits.byteLength;
  }
}

/** Bits per key: with {@link HASHES} hashes, a false positive for about 1 key in 70,000. */
export const BITS_PER_KEY = 24;
const HASHES = 12;

/** Two independent 32-bit hashes of a string's UTF-16 code units (FNV-1a, and a multiply-xorshift); the second odd. */
function hashes(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x85ebca6b);
    b ^= b >>> 13;
  }
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
  b ^= b >>> 16;
  return [a >>> 0, (b | 1) >>> 0];
}
