import type { BuildIssue } from '@bvl/build-issue';
import type { RawArtifact } from '@bvl/metadata';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { AgentClient } from './agent-client.ts';
import { IntentReviewSchema, reviewFailedIssue, reviewIssues, summarizeApp } from './intent-review.ts';
import { costOf } from './price-table.ts';
import { type RetryNotice, runChat } from './run-chat.ts';

/** What {@link reviewIntent} reads. */
export interface ReviewIntentInput {
  readonly client: AgentClient;
  /** The user's goal (the build session's). */
  readonly goal: string;
  /** The app as it is live: the overlay's merged artifacts after a clean publish. */
  readonly artifacts: readonly RawArtifact[];
  /** Names a review-wide warning when the app has no app/object artifact (the package name). */
  readonly fallbackName?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onRetry?: ((n: RetryNotice) => void) | undefined;
}

/** The review's outcome: its warnings and what the call cost. */
export interface IntentReview {
  readonly verdict: 'pass' | 'mismatch' | 'failed';
  readonly issues: BuildIssue[];
  readonly usage: { readonly tokensIn: number; readonly tokensOut: number; readonly costUsd: number };
}

const INSTRUCTIONS = [
  'You review an app built in the ObjectStack metadata format against the goal its user stated.',
  'The app already passed structural, rendering and runtime checks: judge only whether it serves the goal.',
  'A finding names one artifact (type and name) that is missing, or present but wrong for the goal, and says what to change.',
  'Do not report style, naming or labels. When the app serves the goal, answer verdict "pass" with no findings.',
].join(' ');

/**
 * The intent review: one structured-output call (a zod schema as the JSON-schema response format)
 * judges the app against the goal. Each finding becomes an `intent_mismatch` warning naming the
 * artifact (never an error: the review advises, it does not gate). A call that fails, a refusal,
 * or an answer that is not the schema's JSON is one warning saying the app is unreviewed — never
 * silence. Throws only the abort reason when `signal` aborts.
 */
export async function reviewIntent(input: ReviewIntentInput): Promise<IntentReview> {
  const fallback = input.fallbackName ?? 'app';
  let tokensIn = 0;
  let tokensOut = 0;
  const failed = (why: string): IntentReview => ({
    verdict: 'failed',
    issues: [reviewFailedIssue(why, input.artifacts, fallback)],
    usage: { tokensIn, tokensOut, costUsd: costOf({ tokensIn, tokensOut }, input.client.price) },
  });
  let content: string | null | undefined;
  try {
    const completion = await runChat(
      input.client,
      {
        messages: [
          { role: 'system', content: INSTRUCTIONS },
          { role: 'user', content: `Goal: ${input.goal}\n\nThe app (one digest per artifact):\n${summarizeApp(input.artifacts)}` },
        ],
        response_format: zodResponseFormat(IntentReviewSchema, 'intent_review'),
      },
      { signal: input.signal, onRetry: input.onRetry },
    );
    tokensIn = completion.usage?.prompt_tokens ?? 0;
    tokensOut = completion.usage?.completion_tokens ?? 0;
    const message = completion.choices[0]?.message;
    if (message?.refusal) return failed(`the model refused: ${message.refusal.slice(0, 200)}`);
    content = message?.content;
  } catch (e) {
    if (input.signal?.aborted) throw input.signal.reason ?? e;
    return failed((e as Error).message);
  }
  if (!content) return failed('the model answered nothing');
  let raw: unknown;
  try {
    raw = JSON.parse(content);
  } catch {
    return failed(`the answer is not JSON: ${JSON.stringify(content.slice(0, 80))}`);
  }
  const parsed = IntentReviewSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return failed(`the answer does not fit the review schema (${first?.path.join('.') || '(root)'}: ${first?.message})`);
  }
  return {
    verdict: parsed.data.verdict,
    issues: reviewIssues(parsed.data, input.goal, input.artifacts, fallback),
    usage: { tokensIn, tokensOut, costUsd: costOf({ tokensIn, tokensOut }, input.client.price) },
  };
}
