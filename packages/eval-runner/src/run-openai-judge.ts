import { z } from 'zod';
import type { RubricVerdict } from './evidence.ts';
import { JUDGE_INSTRUCTIONS, JudgeAnswerSchema, judgeMessage, type RubricInput, type RubricJudge } from './rubric-judge.ts';

/** One chat completion, as the `openai` client's `chat.completions.create` makes it (a port: this package does not depend on the client). */
export type ChatCompletionCall = (
  params: {
    readonly model: string;
    readonly messages: ReadonlyArray<{ readonly role: 'system' | 'user'; readonly content: string }>;
    readonly response_format: unknown;
  },
  options: { readonly signal: AbortSignal },
) => Promise<{
  readonly choices: ReadonlyArray<{ readonly message?: { readonly content?: string | null; readonly refusal?: string | null } | undefined }>;
  readonly usage?: { readonly prompt_tokens?: number; readonly completion_tokens?: number } | null | undefined;
}>;

/** What {@link openaiJudge} needs: the judge's model, how to call it, and its price (USD per million tokens). */
export interface OpenaiJudgeOptions {
  readonly model: string;
  readonly complete: ChatCompletionCall;
  readonly price?: { readonly input: number; readonly output: number } | undefined;
  /** Calls per verdict at most (a timeout, a dropped connection, 408/409/429/5xx are tried again). */
  readonly tries?: number | undefined;
  /** The first pause between tries; it doubles. */
  readonly retryDelayMs?: number | undefined;
}

/** Calls per verdict at most by default. */
export const JUDGE_TRIES = 3;

// The JSON schema without its `$schema` key, as structured outputs take it.
const { $schema: _dialect, ...VERDICT_SCHEMA } = z.toJSONSchema(JudgeAnswerSchema);
const RESPONSE_FORMAT = { type: 'json_schema', json_schema: { name: 'rubric_verdict', strict: true, schema: VERDICT_SCHEMA } } as const;

const transient = (e: unknown): boolean => {
  const status = (e as { status?: unknown })?.status;
  return typeof status !== 'number' || status === 408 || status === 409 || status === 429 || status >= 500;
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * A rubric judge over an OpenAI-compatible endpoint: one structured-output call per criterion (a
 * zod schema as the JSON-schema response format), tried again on transient failures. An answer
 * that is not the schema's JSON, a refusal, or an endpoint that fails for good throws — the
 * attempt is then `error`, never a pass.
 */
export function openaiJudge(options: OpenaiJudgeOptions): RubricJudge {
  const tries = Math.max(1, options.tries ?? JUDGE_TRIES);
  const delay = options.retryDelayMs ?? 1_000;
  return {
    model: options.model,
    async judge(input: RubricInput, signal: AbortSignal): Promise<RubricVerdict> {
      let completion: Awaited<ReturnType<ChatCompletionCall>> | undefined;
      for (let attempt = 1; completion === undefined; attempt++) {
        try {
          completion = await options.complete(
            {
              model: options.model,
              messages: [
                { role: 'system', content: JUDGE_INSTRUCTIONS },
                { role: 'user', content: judgeMessage(input) },
              ],
              response_format: RESPONSE_FORMAT,
            },
            { signal },
          );
        } catch (e) {
          if (signal.aborted || attempt >= tries || !transient(e))
            throw new Error(`the judge ${options.model} failed: ${(e as Error)?.message ?? String(e)}`, { cause: e });
          await sleep(delay * 2 ** (attempt - 1), signal);
        }
      }
      const tokensIn = completion.usage?.prompt_tokens ?? 0;
      const tokensOut = completion.usage?.completion_tokens ?? 0;
      const message = completion.choices[0]?.message;
      if (message?.refusal) throw new Error(`the judge ${options.model} refused: ${message.refusal.slice(0, 200)}`);
      let raw: unknown;
      try {
        raw = JSON.parse(message?.content ?? '');
      } catch {
        throw new Error(`the judge ${options.model} answered no JSON: ${JSON.stringify((message?.content ?? '').slice(0, 80))}`);
      }
      const answer = JudgeAnswerSchema.safeParse(raw);
      if (!answer.success) throw new Error(`the judge ${options.model} answered outside its schema: ${answer.error.issues[0]?.message ?? ''}`);
      const price = options.price;
      return {
        pass: answer.data.verdict === 'pass',
        reasoning: answer.data.reasoning,
        judge: options.model,
        tokensIn,
        tokensOut,
        costUsd: price ? (tokensIn * price.input + tokensOut * price.output) / 1_000_000 : 0,
      };
    },
  };
}
