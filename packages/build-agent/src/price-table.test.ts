import { describe, expect, it } from 'vitest';
import { costOf, DEFAULT_PRICES, priceOf } from './price-table.ts';

describe('price table', () => {
  it('prices a model exactly, or by the longest name that prefixes it at a "-"', () => {
    expect(priceOf(DEFAULT_PRICES, 'gpt-4o')).toEqual({ input: 2.5, output: 10 });
    expect(priceOf(DEFAULT_PRICES, 'gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf(DEFAULT_PRICES, 'gpt-4.1-nano')).toEqual({ input: 0.1, output: 0.4 });
    expect(priceOf(DEFAULT_PRICES, 'gpt-4omega')).toBeUndefined();
    expect(priceOf(DEFAULT_PRICES, 'llama3.1:8b')).toBeUndefined();
    expect(priceOf({ 'llama3.1:8b': { input: 0, output: 0 } }, 'llama3.1:8b')).toEqual({ input: 0, output: 0 });
  });

  it('costs tokens per million, and nothing without a price', () => {
    expect(costOf({ tokensIn: 1_000_000, tokensOut: 500_000 }, { input: 2, output: 8 })).toBe(6);
    expect(costOf({ tokensIn: 1000, tokensOut: 1000 }, undefined)).toBe(0);
  });
});
