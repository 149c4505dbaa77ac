import type { PlatformContext } from '@bvl/platform';
import { appendTurn, type TranscriptRef, type TurnToRecord } from '@bvl/verify-build';

/**
 * Writes a build's turns to its session's transcript. A write that fails never fails the build:
 * the recorder counts it and keeps the first error, and the build reports it as a warning.
 */
export class TranscriptRecorder {
  private failures = 0;
  private firstError: string | undefined;
  turns = 0;

  constructor(
    private readonly platform: PlatformContext,
    private readonly ref: TranscriptRef,
    /** Exact secret values to redact (the endpoint's API key), beside everything shaped like a secret. */
    private readonly known: readonly string[],
  ) {}

  /** Stores one turn; a failure is counted, never thrown. */
  async record(turn: TurnToRecord): Promise<void> {
    try {
      await appendTurn(this.platform, this.ref, turn, { known: this.known });
      this.turns++;
    } catch (e) {
      this.failures++;
      this.firstError ??= ((e as Error)?.message ?? String(e)).replace(/\s+/g, ' ').slice(0, 200);
    }
  }

  /** The warning a build reports when turns could not be stored, else undefined. */
  get warning(): string | undefined {
    return this.failures
      ? `the transcript is incomplete: ${this.failures} turn(s) could not be stored (first: ${this.firstError}); the build itself went on`
      : undefined;
  }
}
