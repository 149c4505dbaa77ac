/** A usage error: the CLI prints it on one line and exits 2. Its own module, so `bvl --help` loads nothing else. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
