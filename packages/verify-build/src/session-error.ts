/** A caller's mistake about a session (unknown id, another package's session, a bad goal or bound). */
export class SessionError extends Error {
  override readonly name = 'SessionError';
  constructor(
    message: string,
    /**
     * `not_found` for an id this tenant has no session of (another tenant's included: existence
     * does not leak); `stopped` for a publish in a session that has stopped (or stopped during it).
     */
    readonly kind: 'not_found' | 'invalid' | 'stopped' = 'invalid',
  ) {
    super(message);
  }
}

/** Longest goal a session takes (characters); a longer prompt is a clear error, not a silent cut. */
export const MAX_GOAL_LENGTH = 20_000;
