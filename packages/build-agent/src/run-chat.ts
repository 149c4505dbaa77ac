import type OpenAI from 'openai';
import pRetry from 'p-retry';
import type { AgentClient } from './agent-client.ts';
import { backoffMs, retryPlan } from './retry-plan.ts';

/** A retry the agent is about to make, for the progress line. */
export interface RetryNotice {
  readonly attempt: number;
  readonly delayMs: number;
  readonly why: string;
}

type ChatParams = Omit<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, 'model'>;

/** A model call that failed for good (after retries, or at once for a non-transient status). */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  constructor(
    message: string,
    /** The HTTP status of the last answer, when the endpoint answered one (429: rate limited). */
    readonly status?: number | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (ms <= 0) return resolve();
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * One chat completion (non-streaming), retried with p-retry on timeouts, dropped connections,
 * 408/409/429 and 5xx (honouring Retry-After; see retryPlan) and cancelled by `signal`. Throws the
 * abort reason when aborted, and {@link ModelCallError} naming the endpoint and status otherwise.
 */
export async function runChat(
  client: AgentClient,
  params: ChatParams,
  options: { readonly signal?: AbortSignal | undefined; readonly onRetry?: ((n: RetryNotice) => void) | undefined } = {},
): Promise<OpenAI.Chat.Completions.ChatCompletion> {
  const { signal } = options;
  const o = client.retry;
  let attempts = 0;
  try {
    return await pRetry(
      () => {
        attempts++;
        return client.openai.chat.completions.create({ ...params, model: client.model, stream: false }, signal ? { signal } : {});
      },
      {
        retries: o.retries,
        minTimeout: o.minTimeoutMs,
        maxTimeout: o.maxTimeoutMs,
        factor: 2,
        randomize: false,
        ...(signal ? { signal } : {}),
        shouldRetry: async ({ error, retriesConsumed }) => {
          const plan = retryPlan(error, retriesConsumed, o, Date.now());
          if (!plan.retry) return false;
          options.onRetry?.({ attempt: retriesConsumed + 2, delayMs: plan.delayMs, why: plan.why });
          // p-retry waits the backoff next; a longer Retry-After is made up here.
          await sleep(plan.delayMs - backoffMs(retriesConsumed, o), signal);
          return true;
        },
      },
    );
  } catch (e) {
    if (signal?.aborted) throw signal.reason ?? e;
    const err = e as Error & { status?: number };
    const status = typeof err.status === 'number' && !err.message?.startsWith(String(err.status)) ? `HTTP ${err.status} ` : '';
    throw new ModelCallError(
      `the model endpoint ${client.endpoint} failed after ${attempts} attempt(s): ${status}${oneLine(err.message)}`,
      typeof err.status === 'number' ? err.status : undefined,
      { cause: e },
    );
  }
}

const oneLine = (s: string | undefined) => (s ?? 'unknown error').replace(/\s+/g, ' ').slice(0, 300);
