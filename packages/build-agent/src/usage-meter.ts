import type { ReportedUsage } from '@bvl/verify-build';
import { costOf, type Price } from './price-table.ts';

/** What the agent has spent, in total and since it last reported to the session. */
export interface AgentUsage {
  /** Model calls that answered (retries not counted). */
  readonly turns: number;
  /** Retries made (429, 5xx, timeouts). */
  readonly retries: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
  /** Whether the model has a price (else costUsd is 0 and a USD budget cannot bound it). */
  readonly priced: boolean;
}

/**
 * Counts tokens and cost per model call at the client's price. Usage is reported to the session
 * with each verify/publish call (`take`), so the session's budget bounds it.
 */
export class UsageMeter {
  private total = { tokensIn: 0, tokensOut: 0, costUsd: 0 };
  private pending = { tokensIn: 0, tokensOut: 0, costUsd: 0 };
  turns = 0;
  retries = 0;

  constructor(private readonly price: Price | undefined) {}

  /** Adds one call's usage (the OpenAI `usage` block, absent when the endpoint sends none). */
  add(usage: { readonly prompt_tokens?: number; readonly completion_tokens?: number } | null | undefined): void {
    const tokensIn = Math.max(0, Math.floor(usage?.prompt_tokens ?? 0));
    const tokensOut = Math.max(0, Math.floor(usage?.completion_tokens ?? 0));
    const costUsd = costOf({ tokensIn, tokensOut }, this.price);
    for (const u of [this.total, this.pending]) {
      u.tokensIn += tokensIn;
      u.tokensOut += tokensOut;
      u.costUsd += costUsd;
    }
  }

  /** The usage not yet reported, which is now reported. */
  take(): ReportedUsage {
    const p = this.pending;
    this.pending = { tokensIn: 0, tokensOut: 0, costUsd: 0 };
    return p;
  }

  /** Everything spent so far. */
  get usage(): AgentUsage {
    return { turns: this.turns, retries: this.retries, ...this.total, priced: this.price !== undefined };
  }
}
