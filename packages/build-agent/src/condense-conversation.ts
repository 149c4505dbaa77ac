import type OpenAI from 'openai';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Characters of the prompt one model turn sends at most (≈ 12k tokens), the system prompt included. */
export const MAX_PROMPT_CHARS = 48_000;
/** Model turns whose tool calls and results are always sent whole (the latest ones). */
export const RECENT_TURNS = 2;
/** Characters an older tool result (or call's arguments) keeps when condensed. */
export const CONDENSED_RESULT_CHARS = 240;

const textOf = (m: Message): string => (typeof m.content === 'string' ? m.content : m.content ? JSON.stringify(m.content) : '');
const sizeOf = (m: Message): number =>
  textOf(m).length + ('tool_calls' in m && m.tool_calls ? m.tool_calls.reduce((n, c) => n + ('function' in c ? c.function.arguments.length : 0), 0) : 0);

/** What an older tool result becomes: its head and a marker, so the model knows to call again for it. */
export const condensedResult = (text: string): string =>
  text.length <= CONDENSED_RESULT_CHARS
    ? text
    : `${text.slice(0, CONDENSED_RESULT_CHARS)}… [condensed: an earlier answer of ${text.length} characters; call the tool again for the current state]`;

/**
 * The conversation as one model turn sends it (pure; the full conversation is kept for the
 * transcript): `system` replaces the first message once the reference has served (see runBuild);
 * tool results older than the last {@link RECENT_TURNS} model turns are condensed; and while the
 * prompt is over `maxChars`, older tool-call arguments (whole artifact bodies) are condensed too.
 * Assistant/tool pairing is kept, so any OpenAI-compatible endpoint accepts it.
 */
export function condenseConversation(messages: readonly Message[], options: { readonly system?: string; readonly maxChars?: number } = {}): Message[] {
  const maxChars = options.maxChars ?? MAX_PROMPT_CHARS;
  const out = messages.map((m) => m);
  if (options.system !== undefined && out[0]?.role === 'system') out[0] = { role: 'system', content: options.system };
  const assistants = out.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const recentFrom = assistants.length > RECENT_TURNS ? assistants[assistants.length - RECENT_TURNS]! : 0;
  const goal = out.findIndex((m) => m.role === 'user');
  for (let i = 0; i < recentFrom; i++) {
    const m = out[i]!;
    // Tool results, and bvl's interventions (which quote a verify answer); never the goal.
    if (m.role === 'tool' || (m.role === 'user' && i !== goal)) out[i] = { ...m, content: condensedResult(textOf(m)) } as Message;
  }
  let total = out.reduce((n, m) => n + sizeOf(m), 0);
  for (let i = 0; i < recentFrom && total > maxChars; i++) {
    const m = out[i]!;
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    const before = sizeOf(m);
    out[i] = {
      ...m,
      tool_calls: m.tool_calls.map((c) =>
        c.type === 'function' && c.function.arguments.length > CONDENSED_RESULT_CHARS
          ? { ...c, function: { ...c.function, arguments: JSON.stringify({ condensed: condensedResult(c.function.arguments) }) } }
          : c,
      ),
    };
    total -= before - sizeOf(out[i]!);
  }
  return out;
}

/** Characters a conversation sends (for the bench and the bound's test). */
export const promptChars = (messages: readonly Message[]): number => messages.reduce((n, m) => n + sizeOf(m), 0);
