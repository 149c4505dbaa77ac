import { z } from 'zod';

/** What a model costs, in US dollars per million tokens. */
export interface Price {
  readonly input: number;
  readonly output: number;
}

/** Prices by model name (a key also prices the dated variants it prefixes: `gpt-4o-mini` prices `gpt-4o-mini-2024-07-18`). */
export type PriceTable = Readonly<Record<string, Price>>;

/**
 * List prices of a few common OpenAI models (USD per million tokens, as published in 2025). A
 * default, not a truth: `BVL_PRICES` (or the `prices` option) overrides or extends it, and a model
 * it does not price has no cost, so a USD budget cannot bound it.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
};

const PriceSchema = z.strictObject({ input: z.number().min(0).max(10_000), output: z.number().min(0).max(10_000) });
/** A price table as configured (`BVL_PRICES`): `{ "<model>": { "input": usd, "output": usd } }` per million tokens. */
export const PriceTableSchema = z.record(z.string().min(1).max(200), PriceSchema);

/** The price of `model`: an exact entry, else the longest entry that prefixes it at a `-` boundary. */
export function priceOf(table: PriceTable, model: string): Price | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  let best: string | undefined;
  for (const key of Object.keys(table)) if (model.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  return best === undefined ? undefined : table[best];
}

/** Tokens one model call used. */
export interface TokenUsage {
  readonly tokensIn: number;
  readonly tokensOut: number;
}

/** The cost in USD of `usage` at `price` (0 without a price). */
export function costOf(usage: TokenUsage, price: Price | undefined): number {
  if (!price) return 0;
  return (usage.tokensIn * price.input + usage.tokensOut * price.output) / 1_000_000;
}
