/** n choose k as a float (the ratios below stay exact enough for the small n of eval epochs). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

function check(n: number, c: number, k: number): void {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k)) || n < 1 || c < 0 || c > n || k < 1 || k > n)
    throw new RangeError(`pass@k needs integers 0 <= c <= n, 1 <= k <= n (got n=${n}, c=${c}, k=${k})`);
}

/**
 * pass@k: the chance that at least one of k attempts passes, estimated without bias from n
 * attempts of which c passed (Chen et al., 2021): 1 − C(n−c, k) / C(n, k). pass@1 = c / n.
 */
export function passAtK(n: number, c: number, k: number): number {
  check(n, c, k);
  return n - c < k ? 1 : 1 - choose(n - c, k) / choose(n, k);
}

/**
 * pass^k: the chance that all of k attempts pass — reliability rather than capability (τ-bench's
 * pass^k), estimated from n attempts of which c passed: C(c, k) / C(n, k).
 */
export function passHatK(n: number, c: number, k: number): number {
  check(n, c, k);
  return choose(c, k) / choose(n, k);
}
