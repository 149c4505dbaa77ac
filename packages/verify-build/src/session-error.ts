/** A caller's mistake about a session (unknown id, another package's session, a bad goal or bound). */
export class SessionError extends Error {
  override readonly name = 'SessionError';
  constructor(
    message: string,
    /**
     * `not_found` for an id this tenant has no session of (another tenant's included: existence
     * does not leak); `stopped` for a publish in a session that has stopped (or stopped during it);
     * `required` for a verify or publish without a session where the tenant's policy requires one;
     * `limited` for a session the package's window has no rounds or spend left for (`retryAt`: when
     * it has); `forbidden` for a policy change a tenant's token may not make.
     */
    readonly kind: 'not_found' | 'invalid' | 'stopped' | 'required' | 'limited' | 'forbidden' = 'invalid',
    /** With `limited`: when the oldest counted session leaves the window (ISO). */
    readonly retryAt?: string | undefined,
    /** With `retryAt`: how many seconds from now (on the store's clock) that is. */
    readonly retryAfterSeconds?: number | undefined,
  ) {
    super(message);
  }
}

/** Longest goal a session takes (characters); a longer prompt is a clear error, not a silent cut. */
export const MAX_GOAL_LENGTH = 20_000;
