import { redactSecrets } from './redact-secrets.ts';

/** Who spoke in a turn: the system prompt, a user message (the goal, bvl intervening), or the model. */
export type TranscriptRole = 'system' | 'user' | 'assistant';
/** What a turn was for: building the app, or the intent review judging it (counted apart). */
export type TranscriptStage = 'build' | 'review';

/** One tool call of a turn, with its arguments and a bounded summary of what it answered. */
export interface TranscriptToolCall {
  readonly id?: string | undefined;
  readonly name: string;
  readonly arguments: string;
  readonly result: string | null;
}

/** A turn as a writer hands it to the store (redacted and bounded there). */
export interface TurnToRecord {
  readonly stage?: TranscriptStage | undefined;
  readonly role: TranscriptRole;
  readonly content: string | null;
  readonly toolCalls?: readonly TranscriptToolCall[] | undefined;
  readonly tokensIn?: number | undefined;
  readonly tokensOut?: number | undefined;
  /** Prompt tokens the endpoint served from its cache, when it reports them. */
  readonly tokensCached?: number | undefined;
  /** Completion tokens spent reasoning, when the endpoint reports them. */
  readonly tokensReasoning?: number | undefined;
  /** Retries the model call took (429, 5xx, timeouts). */
  readonly retries?: number | undefined;
  /** Wall time of the model call (or of the turn). */
  readonly ms?: number | undefined;
}

/** Characters of a message's content kept at most. */
export const MAX_CONTENT_CHARS = 16_000;
/** Characters of a tool call's arguments kept at most (a staged artifact's body can be large). */
export const MAX_ARGUMENT_CHARS = 16_000;
/** Characters of a tool result's summary kept at most. */
export const MAX_RESULT_CHARS = 2_000;
/** Characters a condensed turn keeps of each text (content, arguments, result). */
export const CONDENSED_CHARS = 160;
/** Characters a session's transcript holds at most: past it, its oldest turns are condensed. */
export const MAX_TRANSCRIPT_CHARS = 400_000;

/** Text cut at `max` characters, with a marker saying how much was cut. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [cut: ${text.length - max} more characters]`;
}

const count = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
const optional = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : null);

/** A turn as stored: redacted (secrets never kept), each text bounded, with its size. Pure. */
export interface StoredTurn {
  readonly stage: TranscriptStage;
  readonly role: TranscriptRole;
  readonly content: string | null;
  readonly toolCalls: readonly TranscriptToolCall[];
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly tokensCached: number | null;
  readonly tokensReasoning: number | null;
  readonly retries: number;
  readonly ms: number;
  readonly chars: number;
}

/** Characters a turn's texts hold. */
export const charsOf = (t: Pick<StoredTurn, 'content' | 'toolCalls'>): number =>
  (t.content?.length ?? 0) + t.toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length + (c.result?.length ?? 0), 0);

/** The turn as the store keeps it: every text redacted of secrets (`known` are exact values, e.g. the API key) and cut to its bound. Pure. */
export function boundTurn(turn: TurnToRecord, known: readonly string[] = []): StoredTurn {
  const clean = (s: string, max: number) => cut(redactSecrets(s, known), max);
  const content = turn.content === null ? null : clean(turn.content, MAX_CONTENT_CHARS);
  const toolCalls = (turn.toolCalls ?? []).map((c) => ({
    ...(c.id ? { id: cut(c.id, 100) } : {}),
    name: cut(c.name, 100),
    arguments: clean(c.arguments, MAX_ARGUMENT_CHARS),
    result: c.result === null ? null : clean(c.result, MAX_RESULT_CHARS),
  }));
  const t = {
    stage: turn.stage ?? 'build',
    role: turn.role,
    content,
    toolCalls,
    tokensIn: count(turn.tokensIn),
    tokensOut: count(turn.tokensOut),
    tokensCached: optional(turn.tokensCached),
    tokensReasoning: optional(turn.tokensReasoning),
    retries: count(turn.retries),
    ms: count(turn.ms),
  };
  return { ...t, chars: charsOf(t) };
}

/** A turn condensed to make room in its session's bound: each text cut to {@link CONDENSED_CHARS} with a marker. Pure. */
export function condenseTurn(t: Pick<StoredTurn, 'content' | 'toolCalls'>): Pick<StoredTurn, 'content' | 'toolCalls' | 'chars'> {
  const c = (s: string) => cut(s, CONDENSED_CHARS);
  const content = t.content === null ? null : c(t.content);
  const toolCalls = t.toolCalls.map((x) => ({ ...x, arguments: c(x.arguments), result: x.result === null ? null : c(x.result) }));
  return { content, toolCalls, chars: charsOf({ content, toolCalls }) };
}
