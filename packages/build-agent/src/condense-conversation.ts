import type OpenAI from 'openai';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Characters of the prompt one model turn sends at most (≈ 8k tokens), the system prompt included. */
export const MAX_PROMPT_CHARS = 32_000;
/** Model turns whose tool calls and results are always sent whole (the latest ones). */
export const RECENT_TURNS = 2;
/** Characters an older tool result (or call's arguments) keeps when condensed. */
export const CONDENSED_RESULT_CHARS = 200;

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
 * tool results, tool-call arguments and bvl's messages older than the last {@link RECENT_TURNS}
 * model turns are condensed to a head and a marker; and while the prompt is still over `maxChars`,
 * the oldest exchanges after the goal are left out whole, with one note saying how many. An
 * assistant turn and its tool answers stay together, so any OpenAI-compatible endpoint accepts it.
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
  // Older tool-call arguments (whole artifact bodies) are condensed too: the drafts hold their effect.
  for (let i = 0; i < recentFrom; i++) {
    const m = out[i]!;
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    out[i] = {
      ...m,
      tool_calls: m.tool_calls.map((c) =>
        c.type === 'function' && c.function.arguments.length > CONDENSED_RESULT_CHARS
          ? { ...c, function: { ...c.function, arguments: JSON.stringify({ condensed: condensedResult(c.function.arguments) }) } }
          : c,
      ),
    };
  }
  // Still over the bound: the oldest exchanges after the goal are left out whole (an assistant turn
  // with its tool answers, or a user message), and one note says so. The transcript keeps them all.
  let total = out.reduce((n, m) => n + sizeOf(m), 0);
  const from = goal + 1;
  let left = 0;
  let cutAt = recentFrom;
  while (total > maxChars && goal >= 0 && from < cutAt) {
    let end = from + 1;
    while (end < cutAt && out[end]!.role === 'tool') end++;
    for (let k = from; k < end; k++) total -= sizeOf(out[k]!);
    left += end - from;
    out.splice(from, end - from);
    cutAt -= end - from;
  }
  if (left > 0)
    out.splice(from, 0, {
      role: 'user',
      content: `[${left} earlier message(s) left out to keep the prompt within its bound; list_artifacts and get_artifact show the drafts as they are now]`,
    });
  return out;
}

/** Characters a conversation sends (for the bench and the bound's test). */
export const promptChars = (messages: readonly Message[]): number => messages.reduce((n, m) => n + sizeOf(m), 0);
