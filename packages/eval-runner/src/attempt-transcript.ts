import type { PlatformContext } from '@bvl/platform';

/** One turn of a build's model conversation: a message, the tool calls it made, what it cost. */
export interface TranscriptTurn {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string | null;
  readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }>;
  /** A tool result answers this call. */
  readonly toolCallId?: string;
  readonly tokensIn?: number;
  readonly tokensOut?: number;
}

/** A build session's transcript, as its store bounded it. */
export interface AttemptTranscript {
  readonly turns: readonly TranscriptTurn[];
  /** Turns the store left out past its bound (a transcript is cut with a marker, never dropped whole). */
  readonly omitted?: number;
}

/**
 * The seam where build transcripts plug in: given an attempt's build session (its id, and the
 * tenant it ran in), the transcript the session store recorded, or null when none was. Build
 * sessions store their transcripts themselves (with the session, shown by `bvl session show`);
 * the eval viewer reads them through this port and never keeps a second copy. Until sessions
 * record transcripts, {@link noTranscripts} answers, and every view says "no transcript recorded".
 */
export type TranscriptReader = (platform: PlatformContext, session: { readonly tenant: string; readonly id: string }) => Promise<AttemptTranscript | null>;

/** The reader while no session store records transcripts. */
export const noTranscripts: TranscriptReader = async () => null;

/** Characters of one turn shown at most; the rest is cut with a marker saying how much. */
export const MAX_TURN_CHARS = 4_000;
/** Turns shown at most; the rest are counted. */
export const MAX_SHOWN_TURNS = 400;

/** A turn's text bounded for a page or a terminal, with a marker when cut. */
export function boundedText(text: string, max = MAX_TURN_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}
