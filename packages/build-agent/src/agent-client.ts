import OpenAI from 'openai';
import { DEFAULT_PRICES, type Price, type PriceTable, PriceTableSchema, priceOf } from './price-table.ts';
import { DEFAULT_RETRY, type RetryOptions } from './retry-plan.ts';

/** The model the agent talks to: an OpenAI-compatible endpoint, a model name, its price and how calls are retried. */
export interface AgentClient {
  readonly openai: OpenAI;
  readonly model: string;
  /** USD per million tokens; undefined when no price is known (then cost is 0 and a USD budget cannot bound the build). */
  readonly price: Price | undefined;
  readonly retry: RetryOptions;
  /** Where the endpoint is, for messages (no credentials). */
  readonly endpoint: string;
}

/** Longest a single model call may take before it counts as a timeout (and is retried). */
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;

/** Options of {@link createAgentClient}. */
export interface AgentClientOptions {
  /** The endpoint's base URL, e.g. `http://127.0.0.1:11434/v1`; default OpenAI's. */
  readonly baseURL?: string | undefined;
  /** Optional for a local endpoint that needs none. */
  readonly apiKey?: string | undefined;
  readonly model: string;
  readonly prices?: PriceTable | undefined;
  readonly retry?: Partial<RetryOptions> | undefined;
  readonly timeoutMs?: number | undefined;
  /**
   * The HTTP transport the `openai` client sends through (its `fetch` option; default the global
   * fetch): a record/replay cassette plugs in here, below the agent's loop.
   */
  readonly fetch?: ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) | undefined;
}

/**
 * An agent client over the real `openai` SDK. The SDK's own retries are off: p-retry is the one
 * retry policy (see retryPlan), so a 429's Retry-After and the budget see every attempt.
 */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  const openai = new OpenAI({
    // A local endpoint needs no key, but the SDK insists on one.
    apiKey: options.apiKey || 'none',
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    openai,
    model: options.model,
    price: priceOf({ ...DEFAULT_PRICES, ...options.prices }, options.model),
    retry: { ...DEFAULT_RETRY, ...options.retry },
    endpoint: redactUrl(options.baseURL ?? 'https://api.openai.com/v1'),
  };
}

const redactUrl = (url: string): string => {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(an unparsable URL)';
  }
};

/**
 * The agent client the environment configures: `OPENAI_BASE_URL` and/or `OPENAI_API_KEY` name the
 * endpoint, `BVL_MODEL` the model, `BVL_PRICES` (JSON) extends the price table. Returns a one-line
 * problem instead when it is not configured or malformed.
 */
export function agentClientFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly retry?: Partial<RetryOptions>; readonly timeoutMs?: number; readonly fetch?: AgentClientOptions['fetch'] } = {},
): { readonly client: AgentClient } | { readonly problem: string } {
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  const model = env.BVL_MODEL?.trim() || undefined;
  if (!baseURL && !apiKey)
    return { problem: 'no model endpoint configured: set OPENAI_BASE_URL (an OpenAI-compatible /v1 URL) or OPENAI_API_KEY, and BVL_MODEL' };
  if (!model) return { problem: 'no model configured: set BVL_MODEL to the model the endpoint serves (e.g. gpt-4.1-mini)' };
  if (baseURL && !/^https?:\/\//i.test(baseURL)) return { problem: `OPENAI_BASE_URL must be an http(s) URL (got ${JSON.stringify(baseURL.slice(0, 80))})` };
  let prices: PriceTable | undefined;
  if (env.BVL_PRICES?.trim()) {
    let raw: unknown;
    try {
      raw = JSON.parse(env.BVL_PRICES);
    } catch (e) {
      return { problem: `BVL_PRICES is not JSON: ${(e as Error).message}` };
    }
    const parsed = PriceTableSchema.safeParse(raw);
    if (!parsed.success)
      return {
        problem: `BVL_PRICES must be {"<model>": {"input": usd, "output": usd}} per million tokens: ${parsed.error.issues[0]?.path.join('.') || '(root)'}: ${parsed.error.issues[0]?.message}`,
      };
    prices = parsed.data;
  }
  return { client: createAgentClient({ baseURL, apiKey, model, prices, ...options }) };
}
