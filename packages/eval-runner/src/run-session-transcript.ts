import { readTranscript } from '@bvl/verify-build';
import type { TranscriptReader, TranscriptTurn } from './attempt-transcript.ts';

/**
 * The transcript reader over the build session store: the turns a build session recorded (they
 * outlive the attempt's tenant), each model turn followed by one tool turn per call with the
 * call's bounded result. Null when the session recorded none (a blueprint agent makes no model turns).
 */
export const sessionTranscripts: TranscriptReader = async (platform, session) => {
  const stored = await readTranscript(platform, session);
  if (stored.length === 0) return null;
  const turns: TranscriptTurn[] = [];
  for (const t of stored) {
    turns.push({
      role: t.role,
      content: t.stage === 'review' ? `intent review: ${t.content ?? ''}` : t.content,
      ...(t.toolCalls.length ? { toolCalls: t.toolCalls.map((c, i) => ({ id: c.id ?? `call_${t.turn}_${i}`, name: c.name, arguments: c.arguments })) } : {}),
      ...(t.tokensIn || t.tokensOut ? { tokensIn: t.tokensIn, tokensOut: t.tokensOut } : {}),
    });
    t.toolCalls.forEach((c, i) => {
      turns.push({ role: 'tool', content: c.result, toolCallId: c.id ?? `call_${t.turn}_${i}` });
    });
  }
  return { turns };
};
