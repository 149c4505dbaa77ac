// How much of a heavy property or agreement test runs. `npm test` runs a fixed-seed sample, so the
// suite stays well inside its time limits on a loaded 2-core machine and a failure reproduces run
// after run; `npm run test:exhaustive` (CI runs it) sets BVL_TEST_EXHAUSTIVE=1 and runs the whole
// form. BVL_TEST_SEED=<n> runs either with another seed (fast-check prints the one that failed).

/** Whether an environment flag is on (`1`, `true`; not `''`, `0`, `false`). */
const on = (value: string | undefined): boolean => value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';

/** The seed `npm test` uses when BVL_TEST_SEED does not name one. */
export const DEFAULT_TEST_SEED = 20_261_117;

/** The seed of a run: BVL_TEST_SEED (a safe integer) or the fixed default; anything else is refused, not ignored. */
export function testSeed(env: Record<string, string | undefined> = process.env): number {
  const raw = env.BVL_TEST_SEED;
  if (raw === undefined || raw === '') return DEFAULT_TEST_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`BVL_TEST_SEED=${JSON.stringify(raw)} is not an integer seed; unset it for the fixed one`);
  return seed;
}

/** Whether this run is the exhaustive one (BVL_TEST_EXHAUSTIVE=1, `npm run test:exhaustive`). */
export const EXHAUSTIVE = on(process.env.BVL_TEST_EXHAUSTIVE);

/** The seed of this run (see {@link testSeed}). */
export const TEST_SEED = testSeed();

/** fast-check parameters for a property: `sample` runs from the fixed seed, or `exhaustive` runs in the exhaustive pass. */
export function propertyRuns(sample: number, exhaustive: number, full = EXHAUSTIVE): { numRuns: number; seed: number } {
  return { numRuns: full ? exhaustive : sample, seed: TEST_SEED };
}

/** A 32-bit hash of a string (FNV-1a): each sample gets its own stream of the seed. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** mulberry32: a small, fast, well-mixed generator of numbers in [0, 1). */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A stratified, fixed-seed sample: for every key (e.g. a kind of mutation), `perKey` of the items
 * that have it, picked at random from the seed and `salt` (so two call sites sample independently);
 * every item in the exhaustive pass. Items keep their order, so failures read as before.
 */
export function sampleEach<T>(items: readonly T[], keyOf: (item: T) => string, perKey: number, salt: string, full = EXHAUSTIVE): T[] {
  if (full) return [...items];
  const groups = new Map<string, number[]>();
  items.forEach((item, i) => {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  const kept = new Set<number>();
  for (const [key, indices] of groups) {
    const random = generator(TEST_SEED ^ hash(`${salt}\u0000${key}`));
    // A partial Fisher–Yates shuffle: the first `perKey` places hold a uniform pick.
    const pool = [...indices];
    for (let i = 0; i < Math.min(perKey, pool.length); i++) {
      const j = i + Math.floor(random() * (pool.length - i));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
      kept.add(pool[i]!);
    }
  }
  return items.filter((_, i) => kept.has(i));
}
